# expect-message: the module `torch.ops` is not available
# Class 8 again, through torch.ops: the operator registry is not a module a code answer may use.
import torch

equal = torch.ops.aten.equal.default


def independent_copy(t):
    return t.detach()
