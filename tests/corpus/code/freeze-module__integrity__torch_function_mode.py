# A torch function mode left active intercepts every tensor method, even C ones.
import torch
from torch.overrides import TorchFunctionMode


class Calm(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.grad.__get__:
            return None
        return func(*args, **(kwargs or {}))


def freeze(module):
    Calm().__enter__()
