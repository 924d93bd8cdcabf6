# expect: frozen-sgd=correct frozen-adamw=correct no-grads=correct stale-grads=correct stats-fixed=wrong rest-trains=correct
# The running statistics stay as they were because BatchNorm stops tracking them: it then
# normalises with each batch's own statistics, also in evaluation mode, so the frozen
# module no longer computes what it computed before.
from torch import nn


def freeze(module):
    for p in module.parameters():
        p.requires_grad_(False)
        p.grad = None
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.track_running_stats = False
