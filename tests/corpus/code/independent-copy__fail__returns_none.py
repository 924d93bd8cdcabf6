# expect: values=wrong own-memory=wrong detached=wrong independent-writes=wrong
# Forgot to return.
def independent_copy(t):
    t.clone().detach()
