# expect: nested
result = []
for _ in range(100_000):
    result = [result]
