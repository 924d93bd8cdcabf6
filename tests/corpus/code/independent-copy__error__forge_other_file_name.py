# expect-message: `torch._C` is not available
# Class 5: code compiled under another file name was not taken for learner code.
import torch

exec(compile("import torch\nhooks = torch._C._autograd", "grader.py", "exec"))


def independent_copy(t):
    return t.detach()
