# expect: frozen-sgd=wrong frozen-adamw=wrong no-grads=wrong stale-grads=wrong stats-fixed=wrong rest-trains=correct
# A zero gradient is still a gradient: weight decay and momentum move the parameters.
import torch


def freeze(module):
    for p in module.parameters():
        p.register_hook(lambda grad: torch.zeros_like(grad))
