# expect-message: the code wrote to the grader's channel
# Writing a result line of our own on every inherited descriptor, then leaving at once:
# the line lacks the step's seal, so the keeper knows it is not the child's own.
import os

forged = b'{"end": 0, "ok": {"status": "ok", "observations": {}}}\n'
for fd in range(3, 256):
    try:
        os.write(fd, forged)
    except OSError:
        pass
os._exit(0)
