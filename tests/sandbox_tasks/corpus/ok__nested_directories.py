# expect:
# 1,500 nested directories in scratch (Python 3.11's shutil.rmtree recurses past 1,000): removing
# them must not recurse, nor cost the next job.
import os

fd = os.open(".", os.O_RDONLY)
for _ in range(1500):
    os.mkdir("d", dir_fd=fd)
    inner = os.open("d", os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = inner
os.close(fd)
os.chmod("d/d/d", 0)  # and one level the owner cannot read
result = "nested"
