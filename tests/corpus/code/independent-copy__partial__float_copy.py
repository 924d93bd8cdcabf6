# expect: values=wrong own-memory=correct detached=correct independent-writes=correct
# .float() changes an integer tensor's dtype.
def independent_copy(t):
    return t.detach().clone().float()
