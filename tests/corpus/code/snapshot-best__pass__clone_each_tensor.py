# Cloning every tensor of the state_dict gives memory of its own, as deepcopy does.
def snapshot(model):
    return {name: t.detach().clone() for name, t in model.state_dict().items()}
