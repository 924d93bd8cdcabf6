# Honest: @torch.no_grad() as a decorator and p.add_(p.grad, alpha=-lr), as torch.optim does.
import torch


@torch.no_grad()
def sgd_step(params, lr):
    for p in params:
        if p.grad is None:
            continue
        p.add_(p.grad, alpha=-lr)
