# expect: values=correct new-leaf=correct own-memory=wrong own-gradient=correct
# Every call copies into the same buffer: a second call overwrites the first copy, so two
# tensors being trained share one memory.
import torch

_buffers = {}


def trainable_copy(t):
    key = (tuple(t.shape), t.dtype)
    if key not in _buffers:
        _buffers[key] = torch.empty(t.shape, dtype=t.dtype)
    out = _buffers[key]
    with torch.no_grad():
        out.copy_(t)
    out.grad = None
    return out.requires_grad_()
