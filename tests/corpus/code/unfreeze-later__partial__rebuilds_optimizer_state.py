# expect: a-trains=correct a-learning-rate=correct b-keeps-momentum=wrong one-optimizer=correct
# Re-initialising the optimizer in place keeps its groups but drops B's momentum.
def unfreeze(model, optimizer, module, lr):
    module.requires_grad_(True)
    groups = [dict(g) for g in optimizer.param_groups]
    optimizer.__init__([{**g} for g in groups], lr=groups[0]["lr"], momentum=groups[0]["momentum"])
    optimizer.add_param_group({"params": list(module.parameters()), "lr": lr})
