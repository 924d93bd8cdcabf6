# expect-message: registered a global module or optimizer hook
# A global optimizer step hook that saves A before each step and puts it back after.
import torch.optim.optimizer as optimizer

saved = {}


def freeze(module):
    params = list(module.parameters())
    optimizer.register_optimizer_step_pre_hook(lambda opt, args, kwargs: saved.update({id(p): p.detach().clone() for p in params}))
    optimizer.register_optimizer_step_post_hook(lambda opt, args, kwargs: [p.data.copy_(saved[id(p)]) for p in params])
