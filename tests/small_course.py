"""The small course most tests share: ``tests/data/small-course``, copied for each test.

    ps1  clone-basics (2 questions, 1 point each) + detach-basics (1 question, scaled to 4)
    ps2  clone-basics + the repository's code exercise independent-copy

A test that needs a variant replaces a file's text (``files={"exercises/x.yml": text}``)
or adds one; the text of the shared files is at hand as ``text("exercises/x.yml")``.
``write_course`` gives ps1 exercises whose questions cover every kind of predict truth.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import nbformat
import yaml

from graders.course.load import load_course
from graders.kinds.base import Context
from graders.workspace import Workspace

REPO = Path(__file__).resolve().parent.parent
SMALL_COURSE = REPO / "tests" / "data" / "small-course"
#: The answers of ps1 that earn full marks, and answers that hold one misconception.
RIGHT = {"clone-basics/shares": "False", "clone-basics/flag": "True", "detach-basics/flag": "False"}
WRONG = {"clone-basics/shares": "True", "clone-basics/flag": "True", "detach-basics/flag": "True"}


def text(name: str) -> str:
    """The text of one of the shared course's files (``course.yml``, ``exercises/...``)."""
    return (SMALL_COURSE / name).read_text(encoding="utf-8")


def _english(data: Any) -> Any:
    """``data`` with every ``{en: ..., zh: ...}`` text replaced by its English."""
    if isinstance(data, dict):
        if set(data) == {"en", "zh"}:
            return data["en"]
        return {k: _english(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_english(v) for v in data]
    return data


def small_course(root: Path, files: Mapping[str, str] | None = None) -> Path:
    """A copy of the small course in ``root`` (with ``files`` replaced or added); the folder."""
    shutil.copytree(SMALL_COURSE, root, dirs_exist_ok=True)
    (root / "solutions").mkdir(exist_ok=True)
    # The bundled exercise, in English only: the small course has one language.
    bundled = yaml.safe_load(
        (REPO / "exercises" / "independent-copy.yml").read_text(encoding="utf-8")
    )
    (root / "exercises" / "independent-copy.yml").write_text(
        yaml.safe_dump(_english(bundled), sort_keys=False)
    )
    shutil.copy(REPO / "solutions" / "independent-copy.py", root / "solutions")
    for folder in ("checkers", "samples"):  # the code exercise's checker and samples
        if (REPO / folder).is_dir():
            shutil.copytree(REPO / folder, root / folder, dirs_exist_ok=True)
    for name, content in (files or {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content, encoding="utf-8")
    return root


# The small course with its ps1's exercises replaced by exercises whose questions cover
# every kind of truth: values, grad_fns, runs that raise or not, warnings.
CLONE = """\
id: clone-basics
title: clone basics
section: "§1a"
kind: predict
setup: |
  import torch
  a = torch.tensor(1.0, requires_grad=True)
  b = a.clone()
questions:
  - id: shares
    prompt: "a.data_ptr() == b.data_ptr()?"
    expr: a.data_ptr() == b.data_ptr()
    explain: clone copies.
    misconceptions:
      - {answer: "True", name: clone-shares-memory, explain: "That is detach()."}
  - id: grad-fn
    prompt: "b.grad_fn?"
    expr: b.grad_fn
    explain: clone is an operation.
  - id: backward
    prompt: "d = b * 3; d.backward()"
    run: "d = b * 3; d.backward()"
    explain: scalar output.
  - id: grad
    prompt: "a.grad?"
    expr: a.grad
    explain: "b = a.clone() passes its gradient (3) back to a."
  - id: nonleaf-grad
    prompt: "b.grad?"
    expr: b.grad
    explain: non-leaf.
"""

DETACH = """\
id: detach-basics
title: detach basics
section: "§2"
kind: predict
setup: |
  import torch
  a = torch.ones(2, 3, requires_grad=True)
  b = a.detach()
questions:
  - id: size
    prompt: "b.shape?"
    expr: b.shape
    explain: same shape.
  - id: write
    prompt: "b[0][0] = 5; a[0][0]?"
    run: "b[0][0] = 5"
    explain: a plain write.
  - id: seen
    prompt: "a[0][0]?"
    expr: a[0][0]
    explain: shared memory.
  - id: backward-nonscalar
    prompt: "a.sum(0).backward()?"
    run: "(a * 2).backward()"
    explain: non-scalar outputs need a gradient.
    accept: ["Exception"]
"""


def write_course(root: Path, extra: dict[str, str] | None = None) -> Path:
    """The small course with CLONE and DETACH as ps1's exercises, and ``extra``; its course.yml."""
    files = {"exercises/clone-basics.yml": CLONE, "exercises/detach-basics.yml": DETACH}
    files.update({f"exercises/{name}": text for name, text in (extra or {}).items()})
    return small_course(root, files) / "course.yml"


ON_TIME = datetime(2026, 10, 1, 12, 0, tzinfo=UTC)


def notebook(answers: Mapping[str, str], code: Mapping[str, str] | None = None) -> str:
    """A student's notebook: one tagged answer cell per question, one per code exercise."""
    cells = [nbformat.v4.new_markdown_cell("# Problem set 1")]
    for key, literal in answers.items():
        cells.append(
            nbformat.v4.new_code_cell(
                f"answer = {literal}", metadata={"graders": {"question": key}}
            )
        )
    for key, source in (code or {}).items():
        cells.append(nbformat.v4.new_code_cell(source, metadata={"graders": {"exercise": key}}))
    return nbformat.writes(nbformat.v4.new_notebook(cells=cells))


#: A code cell that runs until its budget stops it: a learner who holds a worker for seconds.
LOOPING = "def independent_copy(t):\n    while True:\n        pass\n"


def a_class_that_pauses(folder: Path, size: int) -> set[str]:
    """``size`` learners handing in ps2, graded in id order; the two in the middle hand in
    LOOPING code. While they hold both workers for their budget, some grades are saved and
    many are not: a batch stopped then is certainly stopped midway, however busy the machine
    (the pause is CPU time, which a busy machine stretches as it stretches everything)."""
    names = [f"s{i:03d}" for i in range(size)]
    solution = (REPO / "solutions" / "independent-copy.py").read_text(encoding="utf-8")
    for i, name in enumerate(names):
        code = LOOPING if i in (size // 2, size // 2 + 1) else solution
        predictions = {k: v for k, v in (RIGHT if i % 3 else WRONG).items() if "detach" not in k}
        hand_in(folder, name, notebook(predictions, {"independent-copy": code}), name="ps2.ipynb")
    return set(names)


def hand_in(
    folder: Path, student: str, text: str | bytes, when: datetime = ON_TIME, name: str = "ps1.ipynb"
) -> Path:
    """``folder/<student>/<name>`` with ``text``, last modified at ``when``."""
    path = folder / student / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    os.utime(path, (when.timestamp(), when.timestamp()))
    return path


@contextmanager
def open_small_course(root: Path) -> Iterator[Workspace]:
    """The small course copied to ``root``, opened with the in-process runner."""
    from graders.sandbox import InProcessRunner

    loaded = load_course(small_course(root) / "course.yml")
    runner = InProcessRunner()
    try:
        yield Workspace(
            loaded, Context(loaded.course, loaded.root, runner, loaded.root / ".graders-cache")
        )
    finally:
        runner.close()


def students(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Student -> their entry, in a results document read as JSON."""
    return {s["student"]: s for s in doc["students"]}
