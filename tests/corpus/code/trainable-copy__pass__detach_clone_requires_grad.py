# The recipe of torch's own copy-construct warning: detach, copy, then a new leaf.
def trainable_copy(t):
    return t.detach().clone().requires_grad_()
