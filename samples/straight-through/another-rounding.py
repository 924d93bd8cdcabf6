# Right for a learner who rounds another way: copied, the forward pass rounds wrong.
import torch


def round_ste(x):
    return x + (x.{{ "floor" if op != "floor" else "ceil" }}() - x).detach()
