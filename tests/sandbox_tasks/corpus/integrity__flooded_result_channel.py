# expect: larger than the limit
import os

for fd in range(3, 64):
    try:
        os.write(fd, b"[" * (2 << 20))
    except OSError:
        pass
result = "honest"
