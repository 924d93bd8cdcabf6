"""Helpers shared by the notebook tests: the small test course and filling answer cells."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shared_truths import share_truths

NOTEBOOK_COURSE = Path(__file__).resolve().parent / "data" / "notebook-course"
GOLDEN = Path(__file__).resolve().parent / "golden" / "notebook"
CHECKER = Path(__file__).resolve().parent.parent / "checkers" / "independent-copy.py"


def copy_course(dest: Path) -> Path:
    """A private copy of the notebook test course (its truth cache stays out of the repo,
    shared with the other copies this process makes: ``shared_truths``), with the bundled
    course's checker for its code exercise (one checker, not a copy)."""
    shutil.copytree(NOTEBOOK_COURSE, dest, ignore=shutil.ignore_patterns(".graders-cache"))
    (dest / "checkers").mkdir(exist_ok=True)
    shutil.copy(CHECKER, dest / "checkers")
    return share_truths(dest)


def load_nb(path: Path) -> dict[str, Any]:
    """A notebook as JSON, each cell's source joined into one string (nbformat writes lists)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if isinstance(cell["source"], list):
            cell["source"] = "".join(cell["source"])
    return nb


def save_nb(nb: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    return path


def answer_index(nb: dict[str, Any]) -> dict[str, int]:
    """Item or exercise id -> index of the (last) cell whose metadata.graders names it."""
    found = {}
    for i, cell in enumerate(nb["cells"]):
        tag = cell["metadata"].get("graders", {})
        key = tag.get("question") or tag.get("exercise")
        if key:
            found[key] = i
    return found


def fill(nb: dict[str, Any], answers: Mapping[str, str], quoted: bool = True) -> dict[str, Any]:
    """A copy of ``nb`` with its cells answered from ``answers``, found by metadata.

    A question's cell becomes ``answer = <answers[item]>``; a code exercise's cell (keyed
    by the exercise id) becomes ``answers[exercise]``, the source itself.
    """
    nb = copy.deepcopy(nb)
    for key, index in answer_index(nb).items():
        if key not in answers:
            continue
        if "/" not in key:
            nb["cells"][index]["source"] = answers[key]
            continue
        text = json.dumps(answers[key]) if quoted else answers[key]
        nb["cells"][index]["source"] = f"answer = {text}"
    return nb
