# In-place change of a leaf that requires grad, outside torch.no_grad(): torch refuses.
def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p -= lr * p.grad
