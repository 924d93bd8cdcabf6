def round_straight_through(x):
    return x + (x.round() - x).detach()
