import copy

from torch import nn


def snapshot(model: nn.Module) -> dict:
    """A copy of ``model``'s state that later training leaves alone.

    ``state_dict()`` holds the model's own parameter and buffer tensors (shared storage),
    so it follows every later update; ``copy.deepcopy`` gives tensors of their own.
    """
    return copy.deepcopy(model.state_dict())
