import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p.copy_(p - lr * p.grad)
