# A temporary file, in the job's own TMPDIR.
import tempfile

import torch


def independent_copy(t):
    with tempfile.TemporaryFile() as f:
        torch.save(t.detach(), f)
        f.seek(0)
        copy = torch.load(f)
    with tempfile.NamedTemporaryFile(suffix=".txt") as named:
        named.write(b"ok")
    return copy
