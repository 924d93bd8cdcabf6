# expect: frozen-sgd=wrong frozen-adamw=wrong no-grads=wrong stale-grads=wrong stats-fixed=wrong rest-trains=correct
# Frozen copies instead of the module's own parameters: anything holding the originals
# (an optimizer built earlier) still trains them.
from torch import nn


def freeze(module):
    for m in module.modules():
        for name, p in list(m._parameters.items()):
            if p is not None:
                m._parameters[name] = nn.Parameter(p.detach().clone(), requires_grad=False)
