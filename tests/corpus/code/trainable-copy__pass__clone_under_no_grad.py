# A clone made under no_grad is not recorded either: a leaf with memory of its own.
import torch


def trainable_copy(t):
    with torch.no_grad():
        copy = t.clone()
    return copy.requires_grad_()
