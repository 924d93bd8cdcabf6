# expect: time limit
while True:
    pass
