# expect: forward=wrong gradient=correct
def round_ste(x):
    return x * 1
