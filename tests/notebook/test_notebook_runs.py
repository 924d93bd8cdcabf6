"""The released notebook runs from top to bottom in a real kernel (nbclient), and
`graders check` names exactly the answer cells that would stop it.

Two kernels start (a few seconds each, with torch): one runs the student notebook
filled with every accepted answer form as the notebook asks (in quotes) and the
reference solution; the other runs answers written without quotes, with errors allowed,
so each cell that raises can be compared with what the check said without running
anything.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_helpers import answer_index, copy_course, fill, save_nb

from graders.answers.parse import read_answer
from graders.grading.pipeline import answer_key, prepare_assignment
from graders.kinds.predict.answer_cell import extract_answer
from graders.notebook.cells import cell_id
from graders.notebook.kernel import CELL_KEY
from graders.notebook.presubmit import check_notebook
from graders.notebook.release import student_notebook
from graders.workspace import open_workspace

pytestmark = pytest.mark.server  # a Jupyter kernel runs each notebook

# Every form the answer parser accepts, as a learner writes it between the quotes.
ANSWER_FORMS = [
    "2",
    "-2.5",
    "1.0000e-08",
    "True",
    "None",
    "'text with \"both\" quotes'",
    "(True, False)",
    "[1, 2]",
    "nan",
    "tensor(5.)",
    "tensor([[1., 2.],\n        [3., 4.]], grad_fn=<AddBackward0>)",
    "tensor(1., requires_grad=True)",
    "tensor([1, 2], dtype=torch.int32)",
    "tensor([], size=(0, 3))",
    "torch.Size([4, 3])",
    "torch.float64",
    "RuntimeError",
    "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.",
    "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.",
    "Runtime Error",
    "runtimeerror",
    "<CloneBackward0>",
    "<CloneBackward0 object at 0x7f3a2c1b9e50>",
    "no error",
    "No error.",
    "true",
    "false",
    "none",
    "'a backslash \\\\ in a string'",
]


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, Any], dict]]:
    """The student notebook of nb1 (as JSON) and the key computed by torch."""
    course = copy_course(tmp_path_factory.mktemp("runs") / "course")
    with open_workspace(course) as ws:
        key = answer_key(prepare_assignment(ws.loaded, "nb1", ws.ctx))
    nb = student_notebook(ws.loaded, ws.loaded.course.assignments[0])
    yield json.loads(json.dumps(nb)), key


def run(nb: dict[str, Any], folder: Path, allow_errors: bool) -> dict[str, Any]:
    """``nb`` executed top to bottom in a fresh kernel, as Run All does."""
    node = nbformat.from_dict(copy.deepcopy(nb))
    client = NotebookClient(
        node,
        timeout=120,
        kernel_name="python3",
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    return json.loads(nbformat.writes(node))


def test_every_accepted_answer_form_in_quotes_runs_from_top_to_bottom(
    released, tmp_path: Path
) -> None:
    nb, key = released
    for form in ANSWER_FORMS:
        read_answer(form)  # each one is an answer the grader reads
    nb = fill(nb, {"independent-copy": key["independent-copy"]})
    cells, grad = nb["cells"], answer_index(nb)["clone-basics/grad"]
    # Pasted copies of an answer cell, one per form (copies keep the answer cell's metadata).
    copies = [fill_cell(cells[grad], form, f"form-{n}") for n, form in enumerate(ANSWER_FORMS)]
    cells[grad + 1 : grad + 1] = copies
    path = save_nb(nb, tmp_path / "nb1.ipynb")
    assert check_notebook(path).stops == ()
    executed = run(nb, tmp_path, allow_errors=False)  # raises at the first cell that fails
    assert all(c.get("execution_count") for c in executed["cells"] if c["cell_type"] == "code")


def fill_cell(template: dict[str, Any], form: str, ident: str) -> dict[str, Any]:
    return template | {"id": ident, "source": f"answer = {json.dumps(form)}"}


# Answers as learners type them: without quotes, and on a Chinese keyboard.
TYPED = {
    "clone-basics/shares-memory": "answer = False",
    "clone-basics/grad-fn": "answer = <CloneBackward0>",
    "clone-basics/backward": "answer = no error",
    "clone-basics/grad": "answer = tensor(3.)",
    "detach-basics/flags": "answer = （True，false）",
    "detach-basics/write-through": 'answer = "tensor(0.4963)',
    "detach-basics/resize-leaf": "answer = “RuntimeError”",
}
# Run as Python, every one of them raises but `answer = False`, which is Python.
STOPS_AS_PYTHON = set(TYPED) - {"clone-basics/shares-memory"}


def typed(nb: dict[str, Any]) -> dict[str, Any]:
    nb = copy.deepcopy(nb)
    for item, index in answer_index(nb).items():
        if item in TYPED:
            nb["cells"][index]["source"] = TYPED[item]
    return nb


def test_answers_typed_any_way_run_from_top_to_bottom_as_the_text_graders_reads(
    released, tmp_path: Path
) -> None:
    # The released notebook's first cell makes each answer cell bind its text.
    nb = typed(released[0])
    path = save_nb(nb, tmp_path / "nb1.ipynb")
    assert check_notebook(path).stops == ()
    # Right after two answer cells, what `answer` holds: the text graders reads.
    shown = {}
    for item in ("detach-basics/flags", "detach-basics/resize-leaf"):
        at = answer_index(nb)[item] + 1
        nb["cells"].insert(at, nbformat.v4.new_code_cell("print(repr(answer))", id=f"show-{at}"))
        shown[at] = extract_answer(TYPED[item]).text
    executed = run(nb, tmp_path, allow_errors=False)  # raises at the first cell that fails
    assert all(c.get("execution_count") for c in executed["cells"] if c["cell_type"] == "code")
    printed = {at: "".join(executed["cells"][at]["outputs"][0]["text"]) for at in shown}
    assert printed == {at: repr(text) + "\n" for at, text in shown.items()}
    assert set(shown.values()) == {"（True，false）", "RuntimeError"}


def test_the_check_names_exactly_the_answer_cells_that_stop_run_all_as_python(
    released, tmp_path: Path
) -> None:
    # Without the first cell (a notebook released before it, or a kernel without graders),
    # answer cells run as Python: the check names exactly those that raise.
    nb = typed(released[0])
    nb["cells"] = [c for c in nb["cells"] if c.get("id") != cell_id(CELL_KEY)]
    path = save_nb(nb, tmp_path / "nb1.ipynb")
    warned = {f.key for f in check_notebook(path).stops}
    executed = run(nb, tmp_path, allow_errors=True)
    raised = {
        key
        for key, index in answer_index(executed).items()
        if any(o["output_type"] == "error" for o in executed["cells"][index].get("outputs", []))
    }
    assert raised == warned == STOPS_AS_PYTHON
