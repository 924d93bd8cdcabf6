# expect: exceeded the memory limit
chunks = []
while True:
    chunks.append(bytes(64 << 20))  # calloc: address space grows, no page is touched
