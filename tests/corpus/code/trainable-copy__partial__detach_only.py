# expect: values=correct new-leaf=correct own-memory=wrong own-gradient=correct
# A new leaf over t's memory (§2): an optimizer's update of it changes t.
def trainable_copy(t):
    return t.detach().requires_grad_()
