# expect: output=wrong a-no-grads=wrong b-grads=wrong a-left-alone=correct
# Doing nothing earns nearly nothing: only leaving A alone, which it does.
def forward_b_only(A, B, x):
    B(A(x).detach())
