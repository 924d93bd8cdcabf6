# expect: values=wrong own-memory=correct detached=correct independent-writes=correct
# Rebuilds from Python numbers and mends float64 alone: a float16 t still comes back
# float32.
import torch


def independent_copy(t):
    keep = t.dtype if t.dtype in (torch.float64, torch.int64) else None
    return torch.tensor(t.tolist(), dtype=keep)
