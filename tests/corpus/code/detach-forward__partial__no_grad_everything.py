# expect: output=wrong a-no-grads=wrong b-grads=wrong a-flags-untouched=correct
import torch


def forward_b_only(A, B, x):
    with torch.no_grad():
        return B(A(x))
