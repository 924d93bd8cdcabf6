import torch


def sgd_step(params: list[torch.Tensor], lr: float) -> None:
    """One SGD step in place, skipping parameters without a gradient{% if weight_decay %}, with
    weight decay {{ weight_decay }} added to each gradient, as ``torch.optim.SGD`` does{% endif %}.

    ``torch.no_grad()`` lets us change leaves that require grad without recording the
    update in the graph; the in-place change still bumps each parameter's version
    counter, so autograd notices if a saved value is used later (§4). Going through
    ``p.data`` would hide that change.
    """
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                {% if weight_decay -%}
                p -= lr * (p.grad + {{ weight_decay }} * p)
                {%- else -%}
                p -= lr * p.grad
                {%- endif %}
