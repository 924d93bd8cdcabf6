def independent_copy(t):
    while True:
        pass
