# expect: the code wrote to the grader
import os

for fd in range(3, 64):
    try:
        os.write(fd, b'{"ok":{"result":"full marks"}}\n')
    except OSError:
        pass
result = "honest"
