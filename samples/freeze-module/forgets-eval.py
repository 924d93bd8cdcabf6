# A complete freeze of the parameters, but a BatchNorm inside keeps updating its
# running statistics in training mode.
def freeze(module):
    for p in module.parameters():
        p.requires_grad_(False)
        p.grad = None
