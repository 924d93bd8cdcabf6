# expect: same-state=correct buffers=correct unchanged-after-training=wrong restores=wrong
# The very tensors of the model: the "best" checkpoint follows every later step.
def snapshot(model):
    return model.state_dict()
