# expect: frozen-sgd=correct frozen-adamw=correct no-grads=correct stale-grads=correct stats-fixed=correct rest-trains=wrong
# A right freeze plus a forward hook that detaches the module's output "to be sure": the
# layers before the module no longer get any gradient.
def freeze(module):
    module.eval()
    for p in module.parameters():
        p.requires_grad_(False)
        p.grad = None
    module.register_forward_hook(lambda m, inputs, output: output.detach())
