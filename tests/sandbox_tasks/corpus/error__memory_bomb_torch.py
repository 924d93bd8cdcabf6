# expect: exceeded the memory limit
import torch

big = torch.empty(1 << 34, dtype=torch.uint8)
