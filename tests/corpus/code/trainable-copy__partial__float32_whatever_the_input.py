# expect: values=wrong new-leaf=correct own-memory=correct own-gradient=correct
# A new leaf built from the values as a list: every copy is float32, whatever dtype `t`
# had (a float64 input loses its precision).
import torch


def trainable_copy(t):
    return torch.tensor(t.detach().tolist(), requires_grad=True)
