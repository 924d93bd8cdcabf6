# expect: values=wrong same-leaves=wrong autograd-safe=wrong backward-after=wrong skips-none=wrong
# Rebinding the loop variable updates nothing.
def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p = p - lr * p.grad
