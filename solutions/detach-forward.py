import torch
from torch import nn


def forward_b_only(A: nn.Module, B: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """z = B(A(x)), with the graph cut between A and B (§5).

    ``detach()`` returns A's output as a tensor outside the graph: backward stops there,
    so B's parameters get gradients and A's get none, and A's flags are left alone.
    """
    y = A(x)
    return B(y.detach())
