# detach() leaves the graph but shares t's memory (§2).
def independent_copy(t):
    return t.detach()
