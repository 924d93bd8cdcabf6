# expect:
import importlib
import os

for name in ("torch", "json", "graders_shadow_probe"):
    with open(f"{name}.py", "w") as f:
        f.write("raise SystemExit('a shadow module was imported')\n")
import json
import torch

try:
    importlib.import_module("graders_shadow_probe")
    fresh = "imported from the working directory"
except ModuleNotFoundError:
    fresh = "not importable"
result = {"cwd": os.getcwd(), "torch": torch.__file__, "json": json.__file__, "fresh": fresh}
