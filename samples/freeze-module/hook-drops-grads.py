# Drops every gradient of the module as it arrives: .grad stays None, but the gradients
# are computed at full cost, and the BatchNorm statistics still move.
def freeze(module):
    for p in module.parameters():
        p.grad = None
        p.register_post_accumulate_grad_hook(lambda p: setattr(p, "grad", None))
