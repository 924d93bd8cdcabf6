# Puts A in evaluation mode "since we are not training it" and never switches it back:
# any dropout or BatchNorm in A now behaves differently for the code that trains A later.
import torch


def forward_b_only(A, B, x):
    A.eval()
    return B(A(x).detach())
