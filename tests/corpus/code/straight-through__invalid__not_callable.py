import torch

round_ste = torch.round(torch.tensor(1.5))
