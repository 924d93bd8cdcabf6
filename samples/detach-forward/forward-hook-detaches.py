# Cuts the graph with a forward hook on A that is never removed: A's output is detached
# in every later forward pass too.
def forward_b_only(A, B, x):
    A.register_forward_hook(lambda module, args, out: out.detach())
    return B(A(x))
