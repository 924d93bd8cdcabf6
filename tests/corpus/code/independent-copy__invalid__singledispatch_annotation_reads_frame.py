# functools.singledispatch's register() evaluates a string annotation with typing's
# get_type_hints: real eval of a string the compiler never rewrote, so its attribute
# reads are unguarded. Here it reads a frame (torch's own `sys`); graded code may not.
import functools

import torch

found = []


@functools.singledispatch
def show(x):
    return x


def probe(x: "[found.append(torch.sys._getframe(0).f_back.f_globals['__name__']), int][-1]"):
    return x


show.register(probe)


def independent_copy(t):
    if found != ["typing"]:
        raise ValueError(found)
    return t.clone().detach()
