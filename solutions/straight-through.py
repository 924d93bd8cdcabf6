import torch


def round_ste(x: torch.Tensor) -> torch.Tensor:
    """``torch.{{ op }}`` in the forward pass; in backward, pass the gradient through unchanged.

    ``(x.{{ op }}() - x).detach()`` is a constant to autograd, so the output is ``x`` plus a
    constant: its gradient with respect to ``x`` is 1 everywhere.
    """
    return x + (x.{{ op }}() - x).detach()
