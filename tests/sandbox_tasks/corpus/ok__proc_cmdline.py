# expect:
# What every process's command line says, as seen from inside a job.
import os

seen = []
for entry in os.listdir("/proc"):
    if entry.isdigit():
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                seen.append(f.read().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            pass
result = seen
