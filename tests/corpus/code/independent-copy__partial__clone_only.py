# expect: values=correct own-memory=correct detached=wrong independent-writes=correct
# clone() copies the memory but stays in the graph (§1a).
def independent_copy(t):
    return t.clone()
