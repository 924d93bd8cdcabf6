# Seeding, namedtuples, warnings and printing tensors are ordinary code, not tampering.
import warnings
from collections import namedtuple

import torch

Pair = namedtuple("Pair", "rounded correction")


def round_ste(x):
    torch.manual_seed(1)
    warnings.warn("rounding")
    pair = Pair(x.round(), (x.round() - x).detach())
    print(pair.rounded)
    return x + pair.correction
