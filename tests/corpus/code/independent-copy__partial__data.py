# expect: values=correct own-memory=wrong detached=correct independent-writes=wrong
# .data, like detach(), shares the memory (§4).
def independent_copy(t):
    return t.data
