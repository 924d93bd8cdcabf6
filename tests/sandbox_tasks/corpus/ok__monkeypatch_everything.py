# expect:
import builtins
import json
import os

import torch

builtins.print = lambda *a, **k: None
builtins.len = lambda obj: 42
json.dumps = lambda *a, **k: '{"ok": {"result": "forged"}}'
os.write = lambda fd, data: len(data)
torch.Tensor.__add__ = lambda self, other: "patched"
torch.ones = lambda *a, **k: "patched"
result = "patched"
