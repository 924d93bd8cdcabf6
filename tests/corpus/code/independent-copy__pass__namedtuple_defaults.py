# collections.namedtuple with its documented `defaults` argument.
from collections import namedtuple

import torch

Copied = namedtuple("Copied", ["copy", "note"], defaults=["clone().detach()"])


def independent_copy(t):
    return Copied(t.clone().detach()).copy
