# detach() shares the version counter: the in-place change stays visible to autograd (§4).
def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p.detach().sub_(lr * p.grad)
