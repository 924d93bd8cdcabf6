# expect: values=correct own-memory=wrong detached=correct independent-writes=wrong
# Copies into one cached buffer per (shape, dtype): the next call on a tensor of the same
# kind overwrites the "independent" copy handed out before.
import torch

_buffers = {}


def independent_copy(t):
    key = (tuple(t.shape), t.dtype)
    if key not in _buffers:
        _buffers[key] = torch.empty(t.shape, dtype=t.dtype)
    out = _buffers[key]
    out.copy_(t.detach())
    return out
