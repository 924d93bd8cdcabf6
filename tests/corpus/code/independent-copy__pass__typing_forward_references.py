# Forward references as typing's and functools' docs write them: a string annotation
# naming a class defined later, a quoted dotted type, singledispatch on annotations, a
# generic alias with a forward reference, a typed DataPipe, argument_validation.
import functools
from dataclasses import dataclass
from typing import List, NamedTuple, Optional

import torch
from torch.utils.data import IterDataPipe, argument_validation


@dataclass
class Node:
    value: torch.Tensor
    children: List["Node"]
    parent: Optional["Node"] = None


class Pair(NamedTuple):
    left: "torch.Tensor"
    right: Optional["torch.Tensor"] = None


Children = List["Node"]


@functools.singledispatch
def copied(x):
    raise TypeError(type(x))


@copied.register
def _(x: torch.Tensor) -> torch.Tensor:
    return x.detach().clone()


@copied.register
def _(x: "list") -> "list":
    return [copied(v) for v in x]


@argument_validation
def scaled(x: "torch.Tensor", by: List["int"]) -> "torch.Tensor":
    return x * by[0]


class Numbers(IterDataPipe[int]):
    def __iter__(self):
        yield from range(3)


def independent_copy(t):
    root = Node(t, [])
    pair = Pair(t)
    assert list(Numbers()) == [0, 1, 2]
    assert torch.equal(scaled(t, [1]), t)
    return copied([root.value, pair.left])[0]
