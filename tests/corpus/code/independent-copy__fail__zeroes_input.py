# expect: values=wrong own-memory=wrong detached=wrong independent-writes=wrong
# Mutating the input: the copy is right, but the original is destroyed.
import torch


def independent_copy(t):
    copy = t.clone().detach()
    with torch.no_grad():
        t.zero_()
    return copy
