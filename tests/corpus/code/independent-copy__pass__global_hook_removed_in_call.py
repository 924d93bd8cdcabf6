# A global module forward hook (torch.nn.modules.module.register_module_forward_hook),
# registered for one forward pass and removed with its handle before returning, as the
# hook's own docs describe it.
import torch
from torch import nn
from torch.nn.modules.module import register_module_forward_hook


def independent_copy(t):
    shapes = []
    handle = register_module_forward_hook(lambda m, i, o: shapes.append(tuple(o.shape)))
    try:
        nn.Flatten(0)(t.detach())
    finally:
        handle.remove()
    return t.detach().clone()
