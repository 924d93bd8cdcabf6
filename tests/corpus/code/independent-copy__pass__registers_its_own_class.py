# Honest: a program that registers its own class with copy's dispatch table (how copyreg's
# docs pickle a class), as a virtual Mapping (collections.abc's docs), and a
# functools.singledispatch function of its own: each acts on the learner's own objects.
import collections.abc
import copy
import functools

import torch


class Box:
    def __init__(self, t):
        self.t = t


def _reduce_box(box):
    return Box, (box.t.detach().clone(),)


copy.dispatch_table[Box] = _reduce_box


class Table:
    def __init__(self):
        self.items = {}

    def __getitem__(self, key):
        return self.items[key]

    def __len__(self):
        return len(self.items)

    def __iter__(self):
        return iter(self.items)


collections.abc.Mapping.register(Table)


@functools.singledispatch
def duplicate(x):
    raise TypeError(type(x).__name__)


@duplicate.register
def _(x: torch.Tensor):
    return copy.copy(Box(x)).t


def independent_copy(t: torch.Tensor) -> torch.Tensor:
    assert isinstance(Table(), collections.abc.Mapping)
    return duplicate(t)
