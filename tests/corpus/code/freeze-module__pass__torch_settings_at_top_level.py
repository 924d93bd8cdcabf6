# Settings torch's docs set at the top of a training script (reproducibility and
# numerics notes, the default-device note), warnings turned into errors while debugging:
# none of them changes what the grader measures of an honest freeze.
import warnings

import torch
from torch import nn

warnings.simplefilter("error")
torch.set_default_device("cpu")
torch.use_deterministic_algorithms(True)
torch.autograd.set_detect_anomaly(True)
torch.set_float32_matmul_precision("high")
torch.set_printoptions(precision=3)


def freeze(module: nn.Module) -> None:
    module.eval()
    for p in module.parameters():
        p.requires_grad_(False)
        p.grad = None
