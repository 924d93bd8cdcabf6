# expect-message: With a 0-dim tensor that requires grad as `t`
# Copies row by row: iterating over a 0-dim tensor raises TypeError.
import torch


def trainable_copy(t):
    return torch.stack([row.clone() for row in t.detach()]).requires_grad_()
