# tanh of the saved output, not of the input: a plausible-looking, wrong backward.
import torch


class LogCosh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.log(torch.cosh(x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * torch.tanh(y)


def log_cosh(x):
    return LogCosh.apply(x)
