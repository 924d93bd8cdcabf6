# expect: forward=wrong custom-function=wrong backward=wrong gradcheck=wrong saved-tensors=wrong
# The starter's Function left empty: forward returns None.
import torch


class LogCosh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ...

    @staticmethod
    def backward(ctx, grad_output):
        ...


def log_cosh(x):
    return LogCosh.apply(x)
