import torch
from torch import nn


def trainable_copy(t):
    return nn.Parameter(t.clone())
