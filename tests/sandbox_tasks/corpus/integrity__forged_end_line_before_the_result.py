# expect: the code wrote to the grader
# A line in the very shape the child's own code writes, on every descriptor: the keeper
# takes the first line as the step's end, and the child's real line after it is the proof.
import os

for fd in range(3, 64):
    try:
        os.write(fd, b'{"end":0,"ok":{"result":"full marks"}}\n')
    except OSError:
        pass
result = "honest"
