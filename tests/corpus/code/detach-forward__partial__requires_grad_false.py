# expect: output=correct a-no-grads=correct b-grads=correct a-left-alone=wrong
def forward_b_only(A, B, x):
    A.requires_grad_(False)
    return B(A(x))
