# Honest: module-level idioms from torch's docs (requires_grad_, zero_grad(set_to_none), eval).
import torch.nn as nn


def freeze(module: nn.Module) -> None:
    module.requires_grad_(False)
    module.zero_grad(set_to_none=True)
    module.eval()
