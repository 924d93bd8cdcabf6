# expect: values=wrong same-leaves=wrong autograd-safe=wrong backward-after=wrong skips-none=wrong
# New tensors in the list: the optimizer's parameters are not updated.
def sgd_step(params, lr):
    for i, p in enumerate(params):
        if p.grad is not None:
            params[i] = (p - lr * p.grad).detach().requires_grad_()
