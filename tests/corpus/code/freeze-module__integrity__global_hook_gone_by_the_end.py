# expect-message: registered a global module or optimizer hook
# A global forward hook that does the freezing while the checker trains, then removes
# itself, so nothing is left at the end: seen when freeze() returns, before any measuring.
import torch.nn.modules.module as module_hooks

calls = []


def freeze(module):
    def hook(mod, args, out):
        calls.append(1)
        if len(calls) > 3:
            handle.remove()
        return out.detach() if mod is module else out

    handle = module_hooks.register_module_forward_hook(hook)
