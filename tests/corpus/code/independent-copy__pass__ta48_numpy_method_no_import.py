import torch


def independent_copy(t):
    return torch.from_numpy(t.detach().numpy().copy())
