# A functools.singledispatch function of a library's (sympy's shape, imported by torch)
# keeps its registry in its closure: registering the learner's function for torch.Tensor
# changes what it does for every caller, with no attribute written.
import sympy
import torch


@sympy.shape.register(torch.Tensor)
def _shape(t):
    return (1,)


def independent_copy(t):
    return t.clone().detach()
