# Zeroes A's weights after computing the output: the gradient stops, but A is ruined.
import torch


def forward_b_only(A, B, x):
    z = B(A(x).detach())
    with torch.no_grad():
        for p in A.parameters():
            p.zero_()
    return z
