# expect: output=correct a-no-grads=correct b-grads=correct a-flags-untouched=wrong
def forward_b_only(A, B, x):
    A.requires_grad_(False)
    return B(A(x))
