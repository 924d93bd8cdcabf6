# A copy through torch.save and torch.load in memory: io.BytesIO, as torch's tutorials do.
import io

import torch


def independent_copy(t):
    buffer = io.BytesIO()
    torch.save(t.detach(), buffer)
    buffer.seek(0)
    return torch.load(buffer)
