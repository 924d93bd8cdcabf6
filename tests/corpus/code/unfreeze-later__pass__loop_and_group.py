# Switching each parameter on, then one new parameter group with its own learning rate.
def unfreeze(model, optimizer, module, lr):
    params = []
    for p in module.parameters():
        p.requires_grad = True
        params.append(p)
    optimizer.add_param_group({"params": params, "lr": lr})
