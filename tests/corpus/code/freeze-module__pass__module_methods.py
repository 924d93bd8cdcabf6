def freeze(module):
    module.eval()
    module.requires_grad_(False)
    module.zero_grad(set_to_none=True)
