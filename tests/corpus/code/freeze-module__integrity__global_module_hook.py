# expect-message: registered a global module or optimizer hook
# A global forward hook that detaches every module's output.
import torch.nn.modules.module as module_hooks


def freeze(module):
    module_hooks.register_module_forward_hook(lambda mod, args, out: out.detach() if mod is module else out)
