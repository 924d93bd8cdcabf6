# expect: memory
blob = bytes(8 << 30)
