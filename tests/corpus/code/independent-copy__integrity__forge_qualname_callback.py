# expect-message: changed the class
# Class 6: a learner __qualname__ that the guard turned into text ran while the guard was busy.
import torch


class Name:
    def __str__(self):
        return "torch"


torch.Tensor.__qualname__ = Name()


def independent_copy(t):
    return t.detach()
