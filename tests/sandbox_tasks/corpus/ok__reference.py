# expect:
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * x).sum().backward()
result = x.grad.tolist()
