# Honest: a library-style warning aimed at the caller (stacklevel=2), as torch itself does.
import warnings

import torch


def independent_copy(t):
    if t.dtype == torch.int64:
        warnings.warn("copying an integer tensor", UserWarning, stacklevel=2)
    return t.detach().clone()
