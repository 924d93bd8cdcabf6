# expect: forward=correct custom-function=correct backward=wrong gradcheck=wrong saved-tensors=correct
# The local derivative alone: the gradient from above is never multiplied in.
import torch


class LogCosh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log(torch.cosh(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return torch.tanh(x)


def log_cosh(x):
    return LogCosh.apply(x)
