"""Synthetic submissions: one released notebook, filled programmatically for N students.

Every student is a deterministic function of (seed, index), so a run can be repeated and
the nbgrader subset is the very same files graders grades. The mix:

- predictions: each student has a skill in [0.55, 1]; a question is answered right with
  that probability, otherwise with one of its named misconceptions (or a generic wrong
  literal), an answer that does not parse, or left unanswered;
- code cells: ``code_share`` of the students write code, the reference solution most of
  the time and a wrong body (``return None``) otherwise; the others leave the template;
- hostile: every ``HOSTILE_EVERY``-th student (from ``HOSTILE_OFFSET``) puts something
  hostile in the assignment's first code cell (and leaves the others as released),
  cycling through ``HOSTILE``: a memory bomb that writes to what it allocates (so it
  really takes memory, up to the course's per-job limit), an infinite loop (it runs to
  the time limit), a stdout flood and ``os._exit``. It is inside the function body, so it
  runs when the function is called, in graders' sandbox and in nbgrader's test cell alike.

Predictions are written the way the released notebook asks (``answer = "<literal>"``);
a few Python literals are written without quotes, which both graders (reads the text) and
nbgrader (runs the cell, then ``repr``) read alike.
"""

from __future__ import annotations

import ast
import copy
import json
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HOSTILE = ("memory-bomb", "infinite-loop", "stdout-flood", "os-exit")
HOSTILE_EVERY = 125
HOSTILE_OFFSET = 60
GENERIC_WRONG = ("None", "RuntimeError", "True", "tensor(0.)", "no error")
INVALID = "tensor(3.) +"
SUBMITTED_AT = "2026-10-01 12:00:00.000000 UTC"  # before every due date of the course
HOSTILE_BODIES = {
    "memory-bomb": "    hoard = []\n    while True:\n        hoard.append(b'x' * (64 << 20))\n",
    "infinite-loop": "    while True:\n        pass\n",
    "stdout-flood": "    while True:\n        print('x' * 4096)\n",
    "os-exit": "    import os\n    os._exit(0)\n",
}


@dataclass(frozen=True)
class Student:
    """Who a synthetic student is: an id, a skill, and what they do with code cells."""

    id: str
    skill: float
    code: str  # "none" (template left), "solution", "wrong", or one of HOSTILE

    @property
    def hostile(self) -> bool:
        return self.code in HOSTILE

    @property
    def writes_code(self) -> bool:
        return self.code != "none"


def students(
    n: int, seed: int = 0, code_share: float = 0.3, hostile_every: int = HOSTILE_EVERY
) -> list[Student]:
    """The class: ``n`` students, deterministic for a given seed (``hostile_every=0``: none
    hostile)."""
    rng = random.Random(seed)
    made = []
    for i in range(n):
        skill = 0.55 + 0.45 * rng.random()
        if hostile_every and i % hostile_every == HOSTILE_OFFSET % hostile_every:
            code = HOSTILE[(i // hostile_every) % len(HOSTILE)]
        elif rng.random() < code_share:
            code = "solution" if rng.random() < 0.8 else "wrong"
        else:
            code = "none"
        made.append(Student(f"s{i:04d}", skill, code))
    return made


def answer_cells(nb: Mapping[str, Any]) -> dict[str, int]:
    """Item or code exercise id -> index of the cell whose ``metadata.graders`` names it."""
    found = {}
    for i, cell in enumerate(nb["cells"]):
        tag = cell.get("metadata", {}).get("graders", {})
        key = tag.get("question") or tag.get("exercise")
        if key:
            found[key] = i
    return found


def fill(
    released: Mapping[str, Any],
    student: Student,
    key: Mapping[str, str],
    wrong: Mapping[str, list[str]],
    entries: Mapping[str, str],
    seed: int = 0,
) -> dict[str, Any]:
    """A copy of the released notebook as ``student`` hands it in."""
    rng = random.Random(f"{seed}:{student.id}")
    nb = copy.deepcopy(dict(released))
    first_code = next((item for item in answer_cells(nb) if item in entries), None)
    for item, index in answer_cells(nb).items():
        cell = nb["cells"][index]
        if item in entries:
            hostile_here = student.hostile and item == first_code
            cell["source"] = _code(
                cell_text(cell), student, entries[item], key.get(item, ""), hostile_here
            )
        else:
            cell["source"] = _prediction(rng, student.skill, key.get(item), wrong.get(item, []))
    return nb


def cell_text(cell: Mapping[str, Any]) -> str:
    """A cell's source as one string (nbformat writes a list of lines)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _prediction(rng: random.Random, skill: float, right: str | None, wrong: list[str]) -> str:
    roll = rng.random()
    if right is not None and roll < skill:
        return _answer_line(rng, right)
    if roll < skill + (1 - skill) * 0.8:
        choices = wrong or [w for w in GENERIC_WRONG if w != right]
        return _answer_line(rng, rng.choice(choices))
    if roll < skill + (1 - skill) * 0.9:
        return _answer_line(rng, INVALID)
    return 'answer = "..."'


def _answer_line(rng: random.Random, literal: str) -> str:
    if _plain_python(literal) and rng.random() < 0.2:
        return f"answer = {literal}"  # without quotes: both tools read the cell's text
    return f"answer = {json.dumps(literal, ensure_ascii=False)}"


def _plain_python(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return False
    return True


def _code(template: str, student: Student, entry: str, solution: str, hostile_here: bool) -> str:
    if student.code == "solution" and solution:
        return solution
    if student.code == "none" or (student.hostile and not hostile_here):
        return template
    header = _signature_line(template, entry)
    if hostile_here:
        return f"{_imports(template)}\n\n{header}\n{HOSTILE_BODIES[student.code]}"
    return f"{_imports(template)}\n\n{header}\n    return None\n"


def _signature_line(template: str, entry: str) -> str:
    found = re.search(rf"^def {re.escape(entry)}\(.*\):\s*$", template, re.MULTILINE)
    return found.group(0).rstrip() if found else f"def {entry}(*args):"


def _imports(template: str) -> str:
    return "\n".join(
        line for line in template.splitlines() if line.startswith(("import ", "from "))
    )


def write_submission(nb: Mapping[str, Any], folder: Path, student: str, assignment: str) -> Path:
    """Write ``nb`` in nbgrader's ``submitted`` layout, with a ``timestamp.txt`` before the due
    date."""
    where = folder / student / assignment
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{assignment}.ipynb"
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
    (where / "timestamp.txt").write_text(SUBMITTED_AT, encoding="utf-8")
    return path
