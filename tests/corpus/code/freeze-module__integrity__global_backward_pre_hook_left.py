# expect-message: registered a global module or optimizer hook
# A global full-backward pre-hook (torch.nn.modules.module's public API) that zeroes the
# gradient flowing into the module it should have frozen, left registered while the
# checker trains: the module itself is never frozen.
import torch
from torch.nn.modules.module import register_module_full_backward_pre_hook


def freeze(module):
    def cut(mod, grad_output):
        if mod is module:
            return tuple(torch.zeros_like(g) if g is not None else g for g in grad_output)
        return None

    register_module_full_backward_pre_hook(cut)
