# Changing torch's default dtype at the top level: the grader puts it back before measuring.
import torch

torch.set_default_dtype(torch.float64)
assert torch.ones(1).dtype == torch.float64


def independent_copy(t):
    return t.detach().clone()
