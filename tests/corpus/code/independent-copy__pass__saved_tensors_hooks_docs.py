# Saved-tensor hooks as torch's autograd docs write them (a pack and an unpack hook in a
# `with` block), a module forward hook registered and removed, format fields and a
# match on a tensor's attributes.
import torch
from torch import nn
from torch.autograd.graph import saved_tensors_hooks


def pack(x):
    return x.detach().clone()


def unpack(x):
    return x


def independent_copy(t):
    with saved_tensors_hooks(pack, unpack):
        y = (t.detach().double().requires_grad_(True) * 2).sum()
    layer = nn.Identity()
    seen = []
    handle = layer.register_forward_hook(lambda m, i, o: seen.append(o.shape))
    layer(t.detach())
    handle.remove()
    shape = "{0.shape} {0.dtype}".format(t)
    match t:
        case torch.Tensor(shape=s, dtype=d) if d is t.dtype:
            assert s == t.shape and y is not None and seen and shape
    return t.detach().clone()
