# expect-message: is not available
# str.format reads the attributes its template names, where no rewriting of source looks.
def independent_copy(t):
    leaked = "{0.__globals__}".format(independent_copy)
    return t.detach().clone() if leaked else t
