# expect-message: looked inside a generator's frame
# functools.update_wrapper reads any attribute its caller names, where no guard looks: a
# running generator's `gi_frame`, then each frame's `f_back`, each copied onto a function
# of ours and taken out of its namespace with vars() (no attribute read of a frame in our
# source). The copy is right only if the walk reached the checker's frame.
import functools


def hop(obj, name):
    holder = lambda: None  # noqa: E731
    functools.update_wrapper(holder, obj, assigned=(name,), updated=())
    return vars(holder)[name]


def independent_copy(t):
    def walk():
        frame = hop(steps, "gi_frame")
        for _ in range(2):
            frame = hop(frame, "f_back")
        yield hop(hop(frame, "f_code"), "co_name")

    steps = walk()
    if next(steps) != "learner_function":
        raise ValueError("no frame")
    return t.clone().detach()
