# A frozen dataclass that normalises itself with the documented object.__setattr__ idiom,
# and a match on the tensor's class with a dotted class pattern.
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Copy:
    source: torch.Tensor

    def __post_init__(self):
        object.__setattr__(self, "source", self.source.detach().clone())


def independent_copy(t):
    match t:
        case torch.Tensor():
            return Copy(t).source
        case _:
            raise TypeError("not a tensor")
