"""The bundled course copied for a test, and ps2 answered with two misses a Chinese page
must explain: one answer matching a declared misconception, one that cannot be read."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from shared_truths import share_truths

from graders.workspace import load

REPO = Path(__file__).resolve().parent.parent
WRONG = "sigmoid-through-data/x-grad"  # answered with its declared misconception
UNREADABLE = "data-vs-detach/flags"  # answered with an unclosed bracket


def bundled_assignments() -> tuple[str, ...]:
    """Every problem set of the bundled course, in its order: a test that claims something of
    every one covers a problem set added later without being told."""
    data = yaml.safe_load((REPO / "course.yml").read_text(encoding="utf-8"))
    return tuple(str(assignment["id"]) for assignment in data["assignments"])


def bundled_course(root: Path) -> Path:
    """A private copy of the bundled course (its truth cache stays out of the repository,
    shared with the other copies this process makes: ``shared_truths``)."""
    shutil.copy(REPO / "course.yml", root / "course.yml")
    for folder in ("exercises", "solutions", "checkers"):
        shutil.copytree(REPO / folder, root / folder)
    return share_truths(root)


def two_misses(root: Path, key: dict[str, str]) -> dict[str, str]:
    """ps2's answers from its ``key`` (``graders key ps2 --json``), but for two misses."""
    exercise, qid = WRONG.split("/")
    wrong = next(q for q in load(root).exercises[exercise].exercise.questions if q.id == qid)
    answers = {k: v for k, v in key.items() if "/" in k}
    answers[WRONG] = wrong.misconceptions[0].answer
    answers[UNREADABLE] = "(False, True"
    return answers
