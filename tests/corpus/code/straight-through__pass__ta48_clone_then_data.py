import torch


def round_ste(x):
    y = x.clone()
    y.data = torch.round(x.detach())
    return y
