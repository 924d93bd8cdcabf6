# Right in every way but one: a parameter whose .grad is None makes it raise.
import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            p -= lr * (p.grad + {{ weight_decay }} * p)
