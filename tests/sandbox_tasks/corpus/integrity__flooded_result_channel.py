# expect: the code wrote to the grader
# Megabytes on every descriptor: the first byte on the step socket is the end (the task's
# thread may not write there: the kernel kills the process, and the keeper says why).
import os

for fd in range(3, 64):
    try:
        os.write(fd, b"[" * (2 << 20))
    except OSError:
        pass
result = "honest"
