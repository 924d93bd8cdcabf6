import torch

hoard = [torch.empty(1 << 28) for _ in range(1000)]
