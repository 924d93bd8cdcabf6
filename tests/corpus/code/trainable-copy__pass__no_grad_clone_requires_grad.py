# Honest: the torch-docs idiom, a clone made under torch.no_grad(), then requires_grad_(True).
import torch


def trainable_copy(t):
    with torch.no_grad():
        new = t.clone()
    new.requires_grad_(True)
    return new
