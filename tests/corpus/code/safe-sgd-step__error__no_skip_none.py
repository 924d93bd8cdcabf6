import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
