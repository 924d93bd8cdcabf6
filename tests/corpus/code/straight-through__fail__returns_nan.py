# expect: forward=wrong gradient=wrong
def round_ste(x):
    return x * float("nan")
