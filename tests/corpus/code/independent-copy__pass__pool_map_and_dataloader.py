# Honest: a ThreadPoolExecutor used with `with`, and torch.utils.data's TensorDataset.
from concurrent.futures import ThreadPoolExecutor

import torch
from torch.utils.data import TensorDataset


def _copy(x):
    return x.detach().clone()


def independent_copy(t):
    dataset = TensorDataset(t.detach().unsqueeze(0))
    (row,) = dataset[0]
    with ThreadPoolExecutor(max_workers=2) as pool:
        [copy] = list(pool.map(_copy, [row]))
    return copy
