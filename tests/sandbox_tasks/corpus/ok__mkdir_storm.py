# expect:
# Directories made until just before the time limit: their removal is the fork server's
# work after the job, never on the next job's clock.
import os
import time

end = time.monotonic() + 1.6
made = 0
while time.monotonic() < end:
    os.mkdir(f"d{made}")
    made += 1
result = "stormed"
