# expect: values=correct same-leaves=correct autograd-safe=wrong backward-after=correct skips-none=correct
# .data hides the change from autograd (§4).
def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p.data -= lr * p.grad
