# expect: frozen-sgd=wrong frozen-adamw=wrong no-grads=wrong stale-grads=wrong stats-fixed=correct rest-trains=correct
# eval() switches dropout and batch norm to inference; it does not stop gradients.
def freeze(module):
    module.eval()
