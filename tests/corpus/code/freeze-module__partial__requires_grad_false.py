# expect: frozen-sgd=correct frozen-adamw=correct no-grads=correct stale-grads=wrong stats-fixed=wrong rest-trains=correct
# Gradients that already exist survive requires_grad_(False), and the next step uses them.
def freeze(module):
    for p in module.parameters():
        p.requires_grad_(False)
