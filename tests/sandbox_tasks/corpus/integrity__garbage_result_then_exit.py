# expect: not valid JSON
import os

for fd in range(3, 64):
    try:
        os.write(fd, b"total: 100/100\n")
    except OSError:
        pass
os._exit(0)
