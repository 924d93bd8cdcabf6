import torch


def independent_copy(t):
    return t.clone().detach()
