from torch import nn


def freeze(module: nn.Module) -> None:
    """Freeze ``module`` in place.

    ``requires_grad_(False)`` stops gradients from being computed for its parameters, and
    dropping the gradients they already hold leaves ``.grad`` None: optimizers skip a
    parameter only when its ``.grad`` is None (a zero gradient still gets weight decay and
    momentum). ``eval()`` keeps BatchNorm's running statistics (and Dropout) fixed, which
    no way of stopping gradients does.
    """
    module.eval()
    for p in module.parameters():
        p.requires_grad_(False)
        p.grad = None
