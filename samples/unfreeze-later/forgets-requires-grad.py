# In the optimizer, but still frozen: no gradient is ever computed for A.
def unfreeze(model, optimizer, module, lr):
    optimizer.add_param_group({"params": list(module.parameters()), "lr": lr})
