# A new leaf, but over t's memory: updating it changes t (§2).
def trainable_copy(t):
    return t.detach().requires_grad_()
