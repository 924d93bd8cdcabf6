# expect: values=correct same-leaves=correct autograd-safe=correct backward-after=correct skips-none=error
# Forgetting only the parameter without a gradient costs only that check.
import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
