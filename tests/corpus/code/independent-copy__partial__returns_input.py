# expect: values=correct own-memory=wrong detached=wrong independent-writes=wrong
def independent_copy(t):
    return t
