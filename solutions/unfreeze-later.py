import torch
from torch import nn


def unfreeze(model: nn.Module, optimizer: torch.optim.Optimizer, module: nn.Module, lr: float) -> None:
    """Let ``module`` train from now on with learning rate ``lr``.

    Its parameters need ``requires_grad`` again, and the optimizer must learn about them:
    ``add_param_group`` adds them with their own learning rate and keeps the state (the
    momentum) of the parameters already training, which a new optimizer would lose.
    """
    params = list(module.parameters())
    for p in params:
        p.requires_grad_(True)
    optimizer.add_param_group({"params": params, "lr": lr})
