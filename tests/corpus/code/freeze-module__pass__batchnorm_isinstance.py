# The usual BatchNorm test: isinstance against nn.modules.batchnorm._BatchNorm.
from torch import nn


def freeze(module):
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.eval()
        for p in m.parameters(recurse=False):
            p.requires_grad_(False)
            p.grad = None
    module.eval()
