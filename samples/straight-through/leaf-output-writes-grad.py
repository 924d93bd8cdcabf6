# A leaf output, with a hook that writes x.grad by hand: no gradient flows from the
# output to x in autograd's graph.
import torch


def round_ste(x):
    out = torch.{{ op }}(x.detach()).requires_grad_(True)

    def copy_to_x(grad):
        x.grad = grad.clone()
        return grad

    out.register_hook(copy_to_x)
    return out
