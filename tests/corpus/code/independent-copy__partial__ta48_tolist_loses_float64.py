# expect: values=wrong own-memory=correct detached=correct independent-writes=correct
# Rebuilds the tensor from Python numbers: torch.tensor infers float32 for floats, so a
# float64 (or float16/bfloat16) t comes back in another dtype.
import torch


def independent_copy(t):
    return torch.tensor(t.tolist())
