"""What a learner is told about an answer that cannot be read: the error, the accepted
forms it lists, and why each kind of expression is refused (``literal_reader``)."""

from __future__ import annotations

import ast

from ..i18n import N_
from ..said import Told, say

ACCEPTED_FORMS = N_(
    "Write a Python literal (2, 2.5, True, None, 'text', (1, 2)), a tensor as torch prints it "
    "(tensor([1., 2.]), tensor(2., requires_grad=True), tensor(6., grad_fn=<MulBackward0>), "
    "tensor([1, 2], dtype=torch.int32)), torch.Size([4, 3]), a dtype (torch.float32), "
    "an exception name (RuntimeError), a grad_fn (<CloneBackward0>) or: no error"
)


class AnswerSyntaxError(ValueError):
    """An answer that is not one of the accepted forms; the message is for the learner."""

    def __init__(self, reason: Told) -> None:
        forms = say(ACCEPTED_FORMS)
        super().__init__(
            say("Could not read this answer: {reason}. {forms}.", reason=reason, forms=forms)
        )
        self.reason = reason


# Why an expression that is not a literal is refused, by the kind of its node.
REFUSED: dict[type, str] = {
    ast.BinOp: N_("arithmetic is not worked out; write the result"),
    ast.BoolOp: N_("and/or are not worked out; write the result"),
    ast.Compare: N_("comparisons are not worked out; write the result"),
    ast.Subscript: N_("indexing is not worked out; write the result"),
    ast.Lambda: N_("functions are not answers"),
    ast.Dict: N_("dicts are not answer forms"),
    ast.Set: N_("sets are not answer forms"),
    ast.Constant: N_("only numbers, strings, True, False and None are literals here"),
}
