# expect-message: made while it runs
# A function's `__annotations__` set by learner code, its string built at run time: the
# compiler never saw it, and functools.singledispatch's register() hands it to typing,
# which compiles it (typing.ForwardRef) and evaluates it with the real eval. The text
# reads a frame through torch's own `sys`; the copy is right only if it got there.
import functools

import torch

found = []


@functools.singledispatch
def show(x):
    return x


def probe(x):
    return x


probe.__annotations__ = {
    "x": "".join(["[found.append(torch.", "sys._getframe(0).f_back.f_globals['__name__'])", ", int][-1]"])
}
show.register(probe)


def independent_copy(t):
    if found != ["typing"]:
        raise ValueError(found)
    return t.clone().detach()
