# Allocating without bound (doubling each time): the memory limit turns it into MemoryError.
hoard = []
size = 1 << 20
while True:
    hoard.append(bytes(size))
    size *= 2
