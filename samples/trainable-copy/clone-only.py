# clone() of a tensor in the graph is recorded (§1a): a non-leaf whose gradient flows to t.
def trainable_copy(t):
    return t.clone().requires_grad_()
