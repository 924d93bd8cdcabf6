# expect: PermissionError
import os

with open(f"/proc/{os.getppid()}/mem", "rb") as memory:
    result = memory.read(16).hex()
