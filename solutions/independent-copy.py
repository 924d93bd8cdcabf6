import torch


def independent_copy(t: torch.Tensor) -> torch.Tensor:
    """A copy of t that shares neither memory nor graph with it (§3)."""
    return t.clone().detach()
