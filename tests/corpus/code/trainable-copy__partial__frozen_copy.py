# expect: values=correct new-leaf=wrong own-memory=correct own-gradient=wrong
# An independent copy (§3), but nothing to optimize: it requires no grad.
def trainable_copy(t):
    return t.clone().detach()
