# Starting the optimizer afresh loses B's momentum.
def unfreeze(model, optimizer, module, lr):
    module.requires_grad_(True)
    optimizer.add_param_group({"params": list(module.parameters()), "lr": lr})
    optimizer.state.clear()
