# Copies of the parameters only: a BatchNorm's running statistics are buffers, not parameters.
def snapshot(model):
    return {name: p.detach().clone() for name, p in model.named_parameters()}
