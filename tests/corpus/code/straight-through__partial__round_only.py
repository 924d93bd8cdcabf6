# expect: forward=correct gradient=wrong
# round() has a zero gradient almost everywhere.
import torch


def round_ste(x):
    return torch.round(x)
