# expect:
import os

seen = {"environ": dict(os.environ)}
for path in ("/proc/self/environ", "/proc/1/environ", f"/proc/{os.getppid()}/environ", f"/proc/{args['parent_pid']}/environ"):
    try:
        with open(path, "rb") as f:
            seen[path] = f.read().decode(errors="replace")
    except OSError as exc:
        seen[path] = type(exc).__name__
result = seen
