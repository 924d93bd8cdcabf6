# expect-message: the module `sys` is not available
# Class 1: rewrite the observations on their way out, through the result encoder instance.
import torch

protocol = torch.sys.modules["graders.sandbox.protocol"]
protocol._ENCODER.encode = lambda value: '{"forged": true}'


def independent_copy(t):
    return t.detach()
