# How torch.optim itself updates weights: torch._foreach_add_ over the parameters with a
# gradient, under no_grad (a private name of torch, but a read-only function torch uses).
import torch


def sgd_step(params, lr):
    with_grads = [p for p in params if p.grad is not None]
    with torch.no_grad():
        torch._foreach_add_(with_grads, [p.grad for p in with_grads], alpha=-lr)
