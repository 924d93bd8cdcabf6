# torch.compile with the eager backend: dynamo traces the learner's function.
import torch


@torch.compile(backend="eager")
def scaled(x):
    return x * 1


def independent_copy(t):
    scaled(torch.ones(2))
    return t.detach().clone()
