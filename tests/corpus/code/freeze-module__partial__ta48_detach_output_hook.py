# expect: frozen-sgd=correct frozen-adamw=correct no-grads=correct stale-grads=correct stats-fixed=correct rest-trains=wrong
# "Freezes" by detaching the module's output: it also cuts every gradient to the layers
# before the module, so in a model where the module is not first, they stop training.
import torch


def freeze(module):
    module.eval()
    for p in module.parameters():
        p.grad = None
    module.register_forward_hook(lambda m, inputs, output: output.detach())
