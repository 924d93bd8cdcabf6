import torch


def sgd_step(params, lr):
    torch.optim.SGD([p for p in params if p.grad is not None], lr=lr).step()
