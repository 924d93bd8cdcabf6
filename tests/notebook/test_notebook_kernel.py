"""Answer cells bind the text graders reads, in the learner's kernel (``notebook.kernel``),
and ``graders check`` judges Run All by the same rule. The kernel itself runs in
test_notebook_runs.py; here the rule, an IPython shell's transform and the check."""

from __future__ import annotations

import pytest
from IPython.core.inputtransformer2 import TransformerManager

from graders.notebook.kernel import answers_as_text, as_read, cell_source
from graders.notebook.runall import run_all_stops

KERNEL_CELL = cell_source("answers as text")


@pytest.mark.parametrize(
    ("source", "runs_as"),
    [
        ("answer = “False”", 'answer = "False"\n'),  # a Chinese keyboard's quotes
        ("answer = （True，True）", 'answer = "（True，True）"\n'),  # read as written: graders
        ("answer = tensor(2.)", 'answer = "tensor(2.)"\n'),  # would be a NameError
        ("answer = <CloneBackward0>", 'answer = "<CloneBackward0>"\n'),  # a SyntaxError
        ('answer = "no error"', 'answer = "no error"\n'),
        ("# my guess\nanswer = a is b", 'answer = "a is b"\n'),
        ('answer = "..."', 'answer = "..."\n'),
        ("answer =", 'answer = "..."\n'),  # emptied: unanswered, not a SyntaxError
        ("print(a is b)\nanswer = False", None),  # more than the answer: runs as written
        ("def independent_copy(t):\n    return t.clone()", None),
        ("answers = 3", None),
        ("", None),
    ],
)
def test_only_a_cell_that_holds_just_the_answer_runs_as_its_text(
    source: str, runs_as: str | None
) -> None:
    assert as_read(source) == runs_as


class Shell:
    """What ``answers_as_text`` uses of IPython's shell, with IPython's own transformer."""

    def __init__(self) -> None:
        self.manager = TransformerManager()
        self.input_transformers_cleanup = self.manager.cleanup_transforms


def test_the_shell_runs_answer_cells_as_text_once_however_often_the_first_cell_runs() -> None:
    shell = Shell()
    for _ in range(3):  # Run All again, or the first cell run by hand
        answers_as_text(shell)
    assert shell.manager.transform_cell("answer = “False”") == 'answer = "False"\n'
    assert shell.manager.transform_cell("x = “a”\n") == "x = “a”\n"  # not an answer cell
    assert sum(1 for step in shell.input_transformers_cleanup if "as_read" in repr(step)) == 1


def test_the_check_judges_answer_cells_as_they_run_after_the_first_cell() -> None:
    cells = [(1, "answer = “False”"), (2, "import torch"), (3, "answer = tensor(2.)")]
    assert set(run_all_stops(cells)) == {1, 3}  # a notebook released before, as Python
    assert run_all_stops([(0, KERNEL_CELL), *cells]) == {}
    # Cells before the first cell runs are Python still.
    assert set(run_all_stops([cells[0], (2, KERNEL_CELL), cells[2]])) == {1}
