# The Python docs' own idiom for a namedtuple's docstring (collections.namedtuple):
# "Docstrings can be customized by making direct assignments to the __doc__ fields".
from collections import namedtuple

import torch

Copied = namedtuple("Copied", ["tensor", "source_shape"])
Copied.__doc__ += ": a detached copy and the shape it came from"
Copied.tensor.__doc__ = "the copy"


def independent_copy(t):
    return Copied(t.clone().detach(), tuple(t.shape)).tensor
