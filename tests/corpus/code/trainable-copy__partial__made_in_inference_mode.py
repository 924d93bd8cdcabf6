# expect: values=correct new-leaf=correct own-memory=wrong own-gradient=correct
# A copy made under inference_mode: an inference tensor, which no optimizer can update
# outside that mode (the in-place step raises). A raised update is not "no leak".
import torch


def trainable_copy(t):
    with torch.inference_mode():
        return t.detach().clone().requires_grad_()
