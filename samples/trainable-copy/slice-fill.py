# Fills a fresh buffer with out[:] = ...: raises IndexError for a 0-dim t, so every check
# is an error that names the 0-dim input.
import torch


def trainable_copy(t):
    out = torch.empty(t.shape, dtype=t.dtype)
    out[:] = t.detach()
    return out.requires_grad_()
