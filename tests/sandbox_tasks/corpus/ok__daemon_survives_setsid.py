# expect:
import os
import time

read_end, write_end = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.write(write_end, str(os.getpid()).encode())
        os.closerange(0, 4096)  # a true daemon keeps nothing that ties it to the job
        while True:
            time.sleep(1)
    os._exit(0)
os.close(write_end)
result = int(os.read(read_end, 32))
