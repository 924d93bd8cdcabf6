import torch


def independent_copy(t):
    return torch.empty_like(t, requires_grad=False).copy_(t.detach())
