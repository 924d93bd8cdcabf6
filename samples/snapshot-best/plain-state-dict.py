# state_dict() holds the model's own tensors: the "best" checkpoint follows training.
def snapshot(model):
    return model.state_dict()
