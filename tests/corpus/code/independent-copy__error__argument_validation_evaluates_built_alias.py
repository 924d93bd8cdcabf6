# expect-message: made while it runs
# Another door to typing.get_type_hints: torch.utils.data.argument_validation calls it on
# the function it decorates. The annotation is a generic alias made at run time,
# `List[text]`: typing turns the text into a ForwardRef when the alias is made, and
# get_type_hints evaluates it with the real eval. The text reads a frame through
# torch's own `sys`; the copy is right only if it got there.
from typing import List

import torch
from torch.utils.data import argument_validation

found = []
text = "[found.append(torch." + "sys._getframe(1).f_code.co_name), int][-1]"


def probe(x: List[text]):
    return x


argument_validation(probe)


def independent_copy(t):
    if not found:
        raise ValueError(found)
    return t.clone().detach()
