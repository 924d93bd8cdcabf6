# expect: Resource temporarily unavailable
import os
import time

for _ in range(1000):
    if os.fork() == 0:
        time.sleep(1000)
        os._exit(0)
