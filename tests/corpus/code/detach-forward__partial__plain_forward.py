# expect: output=correct a-no-grads=wrong b-grads=correct a-left-alone=correct
def forward_b_only(A, B, x):
    return B(A(x))
