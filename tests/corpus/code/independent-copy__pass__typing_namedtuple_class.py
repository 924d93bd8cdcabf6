# A typing.NamedTuple written with class syntax, as typing's docs write it.
from typing import NamedTuple

import torch


class Copied(NamedTuple):
    copy: torch.Tensor
    note: str = "clone().detach()"


def independent_copy(t):
    return Copied(t.clone().detach()).copy
