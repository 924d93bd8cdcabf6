"""``graders audit``: where today's torch no longer behaves as the article printed.

Every question with ``article_says`` is compared with its truth. Verdicts:

- ``same``: torch gives what the article printed;
- ``renamed``: the same, except a grad_fn name that only gained a version digit
  (``SelectBackward`` -> ``SelectBackward0``);
- ``new warning``: the same value, but computing it now emits a warning;
- ``changed``: torch gives something else (teach what torch does today).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterator

from .answers import AnswerSyntaxError, parse_answer, render_answer
from .compare import compare
from .load import LoadedCourse
from .values import ExceptionValue, GradFnValue, Name, NoError, Sequence, TensorValue, Value, from_json

VERDICTS = ("same", "renamed", "new warning", "changed")


@dataclass(frozen=True)
class Drift:
    """One question's article claim against today's torch."""

    question: str  # "<exercise-id>/<question-id>"
    section: str
    article: str
    torch: str
    verdict: str
    note: str

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def audit_course(loaded: LoadedCourse, truths: dict[str, dict[str, Any]]) -> list[Drift]:
    """Drift entries for every question that records what the article printed."""
    drifts = []
    for ex_id, prepared in truths.items():
        exercise = loaded.exercises[ex_id].exercise
        for q in getattr(exercise, "questions", []):
            entry = prepared.get("questions", {}).get(q.id)
            if q.article_says is None or entry is None:
                continue
            drifts.append(_drift(f"{ex_id}/{q.id}", exercise.section, q.article_says, entry))
    return drifts


def _drift(item: str, section: str, article_text: str, entry: dict[str, Any]) -> Drift:
    truth = from_json(entry["value"])
    warnings = entry.get("warnings", [])
    verdict, note = _verdict(article_text, truth, warnings)
    return Drift(item, section, article_text, render_answer(truth), verdict, note)


def _verdict(article_text: str, truth: Value, warnings: list[dict[str, str]]) -> tuple[str, str]:
    try:
        article = parse_answer(article_text)
    except AnswerSyntaxError as exc:
        return "changed", f"the article's output is not an answer literal: {exc}"
    if not compare(article, truth).correct:
        return "changed", _change(article, truth)
    renamed = [(a, t) for a, t in zip(_grad_fns(article), _grad_fns(truth)) if a != t]
    if renamed:
        return "renamed", "; ".join(f"{a} is now {t}" for a, t in renamed)
    if warnings:
        return "new warning", "; ".join(f"{w['category']}: {w['message']}" for w in warnings)
    return "same", ""


def _change(article: Value, truth: Value) -> str:
    if isinstance(article, Name) and isinstance(truth, NoError):
        return f"no longer raises {article.ident}"
    if isinstance(truth, ExceptionValue):
        return f"now raises {truth.cls}: {truth.message[:100]}"
    return "torch gives another value today: teach what it does now"


def _grad_fns(value: Value) -> Iterator[str]:
    if isinstance(value, GradFnValue):
        yield value.name
    elif isinstance(value, Name):  # the article's bare `<SelectBackward>` parses as a name
        yield value.ident
    elif isinstance(value, TensorValue) and value.grad_fn:
        yield value.grad_fn
    elif isinstance(value, Sequence):
        for item in value.items:
            yield from _grad_fns(item)
