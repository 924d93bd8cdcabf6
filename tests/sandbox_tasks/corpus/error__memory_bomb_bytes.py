# expect: exceeded the memory limit
blob = bytes(8 << 30)
