# The same door aimed at torch: a Python function of torch's own gets the learner's code.
import functools

import torch


def fake_backward(self, *args, **kwargs):
    return None


functools.update_wrapper(torch.Tensor.backward, fake_backward, assigned=("__code__",), updated=())


def independent_copy(t):
    return t.detach()
