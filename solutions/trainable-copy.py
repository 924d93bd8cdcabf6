import torch


def trainable_copy(t: torch.Tensor) -> torch.Tensor:
    """A new leaf to optimize, starting from t's values: its own memory, its own graph."""
    return t.detach().clone().requires_grad_()
