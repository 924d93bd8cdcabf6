# expect: values=correct new-leaf=wrong own-memory=correct own-gradient=wrong
# clone() of a tensor in the graph is recorded (§1a): a non-leaf whose gradient reaches t.
def trainable_copy(t):
    return t.clone().requires_grad_()
