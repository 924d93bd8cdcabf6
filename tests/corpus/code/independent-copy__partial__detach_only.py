# expect: values=correct own-memory=wrong detached=correct independent-writes=wrong
# detach() leaves the graph but shares the memory (§2).
def independent_copy(t):
    return t.detach()
