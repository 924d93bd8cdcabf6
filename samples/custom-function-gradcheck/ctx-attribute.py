# Right gradients, but x is kept as an attribute of ctx: no version check protects it.
import torch


class LogCosh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return torch.log(torch.cosh(x))

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * torch.tanh(ctx.x)


def log_cosh(x):
    return LogCosh.apply(x)
