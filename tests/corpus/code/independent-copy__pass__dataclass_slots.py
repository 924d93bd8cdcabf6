# dataclass(slots=True) (Python 3.10+) and a class-level counter on it.
from dataclasses import dataclass

import torch


@dataclass(slots=True)
class Copy:
    value: torch.Tensor


Copy.made = 0


def independent_copy(t):
    Copy.made += 1
    return Copy(t.clone().detach()).value
