import torch


def sgd_step(params: list[torch.Tensor], lr: float) -> None:
    """One SGD step in place, ``p -= lr * p.grad``, skipping parameters without a gradient.

    ``torch.no_grad()`` lets us change leaves that require grad without recording the
    update in the graph; the in-place change still bumps each parameter's version
    counter, so autograd notices if a saved value is used later (§4). Going through
    ``p.data`` would hide that change.
    """
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
