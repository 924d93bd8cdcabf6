# expect-message: `graders.__file__` is not available
# The reference solutions live next to the grader's package: try to read and run them.
import os
from pathlib import Path

import graders

solutions = Path(graders.__file__).resolve().parent.parent / "solutions"
names = os.listdir(solutions)
for name in names:
    exec((solutions / name).read_text())
