# expect:
import sys

line = "x" * 199 + "\n"
for _ in range(50_000):
    sys.stdout.write(line)
    sys.stderr.write(line)
result = "flooded"
