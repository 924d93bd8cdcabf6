# expect: output=wrong a-no-grads=wrong b-grads=wrong a-flags-untouched=wrong
# Doing nothing earns nothing: the flags check needs an output to stand for.
def forward_b_only(A, B, x):
    B(A(x).detach())
