# expect-message: not what the grader
# Writing a result frame of our own on every inherited descriptor, then leaving at once:
# `os` is a tool for reaching into the process: refused and flagged, nothing is written.
import os

forged = b'{"end": 0, "ok": {"status": "ok", "observations": {}}}\n'
for fd in range(3, 256):
    try:
        os.write(fd, forged)
    except OSError:
        pass
os._exit(0)
