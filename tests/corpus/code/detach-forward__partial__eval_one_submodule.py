# expect: output=correct a-no-grads=correct b-grads=correct a-left-alone=wrong
# Switches only A's first layer to evaluation mode: A.training is still True, but a module
# inside A is left in another mode than it was.
def forward_b_only(A, B, x):
    A[0].eval()
    return B(A(x).detach())
