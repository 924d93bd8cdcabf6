# expect: output=wrong a-no-grads=wrong b-grads=wrong a-left-alone=correct
# Detaching the output cuts B off too: nothing gets a gradient.
def forward_b_only(A, B, x):
    return B(A(x)).detach()
