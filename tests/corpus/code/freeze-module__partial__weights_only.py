# expect: frozen-sgd=wrong frozen-adamw=wrong no-grads=wrong stale-grads=wrong stats-fixed=wrong rest-trains=correct
# The biases are parameters too.
def freeze(module):
    for m in module.modules():
        if getattr(m, "weight", None) is not None:
            m.weight.requires_grad_(False)
            m.weight.grad = None
