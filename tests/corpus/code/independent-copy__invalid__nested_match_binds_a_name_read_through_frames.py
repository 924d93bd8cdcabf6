# expect-message: may not read `gi_frame`
# A class pattern's keywords are read by the interpreter; the case checks only what it
# binds. Nested, the walk goes through frames (`gi_frame`, `f_back`, `f_code`) and binds
# a string at the end: no frame is ever bound. The copy is right only if it got there.
def independent_copy(t):
    def walk():
        match steps:
            case object(gi_frame=object(f_back=object(f_back=object(f_code=object(co_name=name))))):
                yield name
            case _:
                yield None

    steps = walk()
    if next(steps) != "learner_function":
        raise ValueError("no frame")
    return t.clone().detach()
