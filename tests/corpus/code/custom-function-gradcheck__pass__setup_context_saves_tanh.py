# forward without ctx, setup_context saving tanh(x) (computed once), and needs_input_grad.
import torch


class LogCosh(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.cosh().log()

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(torch.tanh(x))

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.needs_input_grad[0]:
            return None
        (t,) = ctx.saved_tensors
        return grad_output * t


def log_cosh(x):
    return LogCosh.apply(x)
