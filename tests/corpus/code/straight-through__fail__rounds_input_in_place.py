# expect: forward=wrong gradient=wrong
# Rounding x itself through .data: looks right from the outside, but x is destroyed.
def round_ste(x):
    x.data.round_()
    return x
