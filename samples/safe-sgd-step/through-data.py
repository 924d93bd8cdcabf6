# .data hides the change from autograd (§4): a pending backward silently uses new values.
def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p.data -= lr * (p.grad + {{ weight_decay }} * p.data)
