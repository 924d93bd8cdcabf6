# expect: PermissionError
# Pages written into a memfd are not mapped, so RLIMIT_AS does not count them: refused.
import os

fd = os.memfd_create("hoard")
for _ in range(64):
    os.write(fd, b"x" * (1 << 24))
result = "hoarded 1 GiB"
