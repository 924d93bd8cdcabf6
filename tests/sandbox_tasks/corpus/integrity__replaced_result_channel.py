# expect: closed or replaced
import os

os.closerange(3, 4096)
files = [open(f"decoy-{i}", "w") for i in range(32)]
result = "written into a decoy file"
