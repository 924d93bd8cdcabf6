# expect-message: the module `torch.library` is not available
# Class 8: a dispatcher kernel replaced through torch.library is invisible to any snapshot.
import torch

lib = torch.library.Library("aten", "IMPL")
lib.impl("equal", lambda a, b: True, "CPU")


def independent_copy(t):
    return t.detach()
