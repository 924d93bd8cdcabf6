# Printing a caught exception's traceback is ordinary code.
import traceback

import torch


def independent_copy(t):
    try:
        torch.ones(2) @ torch.ones(3)
    except RuntimeError:
        traceback.print_exc()
    return t.detach().clone()
