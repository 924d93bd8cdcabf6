# expect: forward=correct custom-function=correct backward=wrong gradcheck=wrong saved-tensors=wrong
# Two gradients for one input: torch refuses the backward.
import torch


class LogCosh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log(torch.cosh(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.tanh(x), grad_output


def log_cosh(x):
    return LogCosh.apply(x)
