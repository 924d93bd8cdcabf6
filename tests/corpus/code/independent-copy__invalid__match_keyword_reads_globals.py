# expect-message: may not read `__globals__`
# A class pattern's keyword is an attribute the interpreter reads on the learner's behalf.
def independent_copy(t):
    match independent_copy:
        case object(__globals__=found):
            found.clear()
    return t.detach().clone()
