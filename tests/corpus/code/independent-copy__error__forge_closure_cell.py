# expect-message: `builtin_function_or_method.__closure__` is not available
# Class 7: the guard's own closure cell, reached through a function's __closure__.
import torch


def independent_copy(t):
    for cell in torch.equal.__closure__ or ():
        cell.cell_contents = ()
    return t.detach()
