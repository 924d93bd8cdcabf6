# expect-message: looked inside a
# str.format reads the attributes its template names; the guard holds each name to the
# rules of a read by its spelling only, and `gi_frame`, `f_back`, `f_code` are public
# names. From inside a running generator, its own frame leads to the checker's: the copy
# is right only if the template reached a frame.
def independent_copy(t):
    def walk():
        yield "{0.gi_frame.f_back.f_back.f_code.co_name}".format(steps)

    steps = walk()
    if next(steps) != "learner_function":
        raise ValueError("no frame")
    return t.clone().detach()
