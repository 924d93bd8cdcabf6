# expect-message: looked inside a traceback's frame
# A traceback handed to an exit callback (no name reached it), its `tb_frame` read by
# functools.update_wrapper (which reads any attribute its caller names) and each `f_back`
# after it: no attribute of a frame or traceback is read in our source. The copy is
# right only if the walk reached the checker's frame.
import contextlib
import functools


def hop(obj, name):
    holder = lambda: None  # noqa: E731
    functools.update_wrapper(holder, obj, assigned=(name,), updated=())
    return vars(holder)[name]


def independent_copy(t):
    found = []

    def walk(kind, exc, tb):
        frame = hop(hop(tb, "tb_frame"), "f_back")
        found.append(hop(hop(frame, "f_code"), "co_name"))
        return True

    with contextlib.ExitStack() as stack:
        stack.push(walk)
        raise KeyError("x")
    if found != ["learner_function"]:
        raise ValueError(found)
    return t.clone().detach()
