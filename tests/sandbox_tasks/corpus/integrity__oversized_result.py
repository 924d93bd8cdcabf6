# expect: larger than the limit
result = "x" * (8 << 20)
