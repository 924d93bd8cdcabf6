# expect: the code wrote to the grader
# A line that is not JSON on every descriptor, then out before the real line: the write on
# the step socket itself is refused by the kernel (SIGSYS) and is the evidence.
import os

for fd in range(3, 64):
    try:
        os.write(fd, b"total: 100/100\n")
    except OSError:
        pass
os._exit(0)
