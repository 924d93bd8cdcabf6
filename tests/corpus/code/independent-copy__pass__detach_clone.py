# detach().clone(): the same result as clone().detach() (§3).
import torch


def independent_copy(t):
    return t.detach().clone()
