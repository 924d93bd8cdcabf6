# A joins B's parameter group: it trains, but with B's learning rate.
def unfreeze(model, optimizer, module, lr):
    module.requires_grad_(True)
    optimizer.param_groups[0]["params"].extend(module.parameters())
