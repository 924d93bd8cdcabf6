# expect-message: made while it runs
# An annotation that is a name: the compiler sees `x: hint`, a plain type; the name is
# bound to a string built at run time, which singledispatch's register() (through
# typing.get_type_hints) compiles and evaluates unrewritten. Even a "plain" dotted text
# reads what a guarded read would refuse (`torch.sys`): the copy is right only if the
# evaluation reached `sys.modules`.
import functools

import torch

hint = ".".join(["torch", "sys", "modules"])


@functools.singledispatch
def show(x):
    return x


def probe(x: hint):
    return x


try:
    show.register(probe)
except TypeError as invalid:  # "... is not a class": what was evaluated, in the message
    reached = "graders" in str(invalid)
else:
    reached = False


def independent_copy(t):
    if not reached:
        raise ValueError("not reached")
    return t.clone().detach()
