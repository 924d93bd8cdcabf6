# Right for a learner whose weight decay is another: copied, it moves every parameter wrong.
import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * (p.grad + {{ 0.5 if weight_decay != 0.5 else 0.05 }} * p)
