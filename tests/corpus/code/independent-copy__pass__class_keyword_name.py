# A class keyword called `name` (passed on to __init_subclass__), nothing else unusual.
import torch


class Copier:
    kinds = {}

    def __init_subclass__(cls, name="", **kwargs):
        Copier.kinds[name] = cls


class CloneDetach(Copier, name="clone-detach"):
    def __call__(self, t):
        return t.clone().detach()


def independent_copy(t):
    return Copier.kinds["clone-detach"]()(t)
