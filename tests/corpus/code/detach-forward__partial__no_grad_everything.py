# expect: output=wrong a-no-grads=wrong b-grads=wrong a-left-alone=correct
import torch


def forward_b_only(A, B, x):
    with torch.no_grad():
        return B(A(x))
