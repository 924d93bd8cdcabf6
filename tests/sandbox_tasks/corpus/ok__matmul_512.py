# expect:
import torch

a = torch.randn(512, 512)
b = torch.randn(512, 512)
result = {"threads": torch.get_num_threads(), "finite": bool(torch.isfinite(a @ b).all())}
