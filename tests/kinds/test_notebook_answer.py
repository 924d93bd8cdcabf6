"""What an answer cell says, read as text: the prediction, unanswered, or the whole cell."""

from __future__ import annotations

import pytest

from graders.kinds.predict.answer_cell import MAX_ANSWER_CHARS, Extracted, extract_answer

UNANSWERED = Extracted(None)

CASES = [
    # The released form and the ways of leaving a question unanswered.
    pytest.param("answer = ...", UNANSWERED, id="released-form"),
    pytest.param('answer = "..."', UNANSWERED, id="quoted-ellipsis"),
    pytest.param("", UNANSWERED, id="emptied"),
    pytest.param("# thinking about it", UNANSWERED, id="comment-only"),
    pytest.param("# YOUR CODE HERE\nraise NotImplementedError()", UNANSWERED, id="nbgrader-stub"),
    # Predictions: the text right of `=`, a string literal standing for its content.
    pytest.param("answer = False", Extracted("False"), id="literal"),
    pytest.param('answer = "tensor(3.)"', Extracted("tensor(3.)", quoted=True), id="quoted"),
    pytest.param(
        "answer = 'no error'  # sure?", Extracted("no error", quoted=True), id="quoted-with-comment"
    ),
    pytest.param(
        "answer = (True,\n          False)", Extracted("(True,\n          False)"), id="multi-line"
    ),
    pytest.param("answer = torch.Size([4, 3])", Extracted("torch.Size([4, 3])"), id="call-as-text"),
    pytest.param('answer = f"{secret}"', Extracted('f"{secret}"'), id="f-string-as-text"),
    pytest.param(
        "# YOUR CODE HERE\nanswer = True\nraise NotImplementedError()",
        Extracted("True"),
        id="stub-left-behind",
    ),
    # Not Python, still one `answer = ...`: the tokenizer finds the text.
    pytest.param("answer = no error", Extracted("no error"), id="bare-no-error"),
    pytest.param("answer = no error  # sure", Extracted("no error"), id="bare-with-comment"),
    pytest.param(
        "answer = tensor(6., grad_fn=<MulBackward0>)",
        Extracted("tensor(6., grad_fn=<MulBackward0>)"),
        id="grad-fn-brackets",
    ),
    pytest.param(
        "answer = tensor([[1., 2.],\n        [3., 4.]], grad_fn=<AddBackward0>)",
        Extracted("tensor([[1., 2.],\n        [3., 4.]], grad_fn=<AddBackward0>)"),
        id="printed-matrix",
    ),
    # Other lines besides the answer: the last `answer = ...` is read, the rest named.
    pytest.param(
        "answer = 3; print(answer)", Extracted("3", ignored=("print(answer)",)), id="two-statements"
    ),
    pytest.param(
        'print(b.is_leaf)\nanswer = "True"',
        Extracted("True", quoted=True, ignored=("print(b.is_leaf)",)),
        id="print-before-the-answer",
    ),
    pytest.param(
        'answer = "True"\nanswer = "False"',
        Extracted("False", quoted=True, ignored=('answer = "True"',)),
        id="the-last-answer-line-counts",
    ),
    pytest.param(
        "answer = <CloneBackward0>; import os",
        Extracted("<CloneBackward0>", ignored=("import os",)),
        id="two-statements-not-python",
    ),
    pytest.param(
        "%pip install torch\nanswer = 1",
        Extracted("1", ignored=("%pip install torch",)),
        id="magic",
    ),
    # A missing closing quote: what follows the opening quote.
    pytest.param(
        'answer = "tensor(2.)',
        Extracted("tensor(2.)", quoted=True, unclosed=True),
        id="unclosed-quote",
    ),
    pytest.param(
        "print(a)\nanswer = 'no error",
        Extracted("no error", quoted=True, ignored=("print(a)",), unclosed=True),
        id="unclosed-quote-after-a-line",
    ),
    pytest.param("answer = (1,", Extracted("(1,"), id="unclosed-bracket"),
    # Quotes a keyboard typed that Python does not read: the text between them.
    pytest.param(
        "answer = “False”", Extracted("False", quoted=True, typed_quotes=True), id="curly-quotes"
    ),
    pytest.param(
        "answer = 「(True, False)」",
        Extracted("(True, False)", quoted=True, typed_quotes=True),
        id="corner-quotes",
    ),
    pytest.param(
        "answer = ＂没有报错＂",
        Extracted("没有报错", quoted=True, typed_quotes=True),
        id="full-width",
    ),
    pytest.param(
        "answer = ‘no error’  # sure",
        Extracted("no error", quoted=True, typed_quotes=True),
        id="curly-single-quotes-with-comment",
    ),
    pytest.param("answer = “a“b”", Extracted("“a“b”"), id="three-curly-quotes-are-text"),
    pytest.param(
        'answer = "（True，True）"',
        Extracted("（True，True）", quoted=True),
        id="full-width-inside",
    ),
    # No `answer = ...` line: the whole cell, for the parser to report as invalid.
    pytest.param("answer == 3", Extracted("answer == 3", True), id="comparison"),
    pytest.param("x = 3", Extracted("x = 3", True), id="other-name"),
    pytest.param("answer = x = 3", Extracted("answer = x = 3", True), id="chained"),
    pytest.param("!curl http://x", Extracted("!curl http://x", True), id="shell-escape"),
    pytest.param("True", Extracted("True", True), id="bare-expression"),
    pytest.param(
        "a.data_ptr() == b.data_ptr()",
        Extracted("a.data_ptr() == b.data_ptr()", True),
        id="pasted-experiment",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_extract_answer(source: str, expected: Extracted) -> None:
    assert extract_answer(source) == expected


def test_a_huge_cell_is_cut_before_it_is_parsed() -> None:
    extracted = extract_answer("answer = " + "1" * (10 * MAX_ANSWER_CHARS))
    assert extracted.text is not None and len(extracted.text) < MAX_ANSWER_CHARS


def test_deep_nesting_is_text_not_a_crash() -> None:
    extracted = extract_answer("answer = " + "(" * 5000 + ")" * 5000)
    assert extracted.text is not None and extracted.text.startswith("((")
