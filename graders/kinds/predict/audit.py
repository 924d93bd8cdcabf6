"""``graders audit``: where today's torch no longer behaves as the article printed.

Every question with ``article_says`` is compared with its truth. Verdicts:

- ``same``: torch gives what the article printed;
- ``renamed``: the same, except a grad_fn name that only gained a version digit
  (``SelectBackward`` -> ``SelectBackward0``);
- ``new warning``: the same value, but computing it now emits a warning;
- ``changed``: torch gives something else (teach what torch does today).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ...answers.compare import compare
from ...answers.parse import AnswerSyntaxError, parse_answer
from ...answers.values import (
    ExceptionValue,
    GradFnValue,
    Name,
    NoError,
    Sequence,
    TensorValue,
    Value,
)
from .model import PredictExercise
from .truth import TorchWarning, Truth, Truths

if TYPE_CHECKING:
    from ...course.loaded import LoadedCourse

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


def audit_course(loaded: LoadedCourse, prepared: Mapping[str, Any]) -> list[Drift]:
    """Drift entries for every question that records what the article printed.

    ``prepared`` holds each exercise's prepared state; only predictions have truths.
    """
    drifts = []
    for ex_id, truths in prepared.items():
        exercise = loaded.exercises[ex_id].exercise
        if not isinstance(exercise, PredictExercise) or not isinstance(truths, Truths):
            continue
        for q in exercise.questions:
            truth = truths.questions.get(q.id)
            if q.article_says is not None and truth is not None:
                drifts.append(_drift(f"{ex_id}/{q.id}", exercise.section, q.article_says, truth))
    return drifts


def _drift(item: str, section: str, article_text: str, truth: Truth) -> Drift:
    verdict, note = _verdict(article_text, truth.value, truth.warnings)
    return Drift(item, section, article_text, truth.literal, verdict, note)


def _verdict(
    article_text: str, truth: Value, warnings: tuple[TorchWarning, ...]
) -> tuple[str, str]:
    try:
        article = parse_answer(article_text)
    except AnswerSyntaxError as exc:
        return "changed", f"the article's output is not an answer literal: {exc}"
    if not compare(article, truth).correct:
        return "changed", _change(article, truth)
    renamed = [(a, t) for a, t in zip(_grad_fns(article), _grad_fns(truth), strict=False) if a != t]
    if renamed:
        return "renamed", "; ".join(f"{a} is now {t}" for a, t in renamed)
    if warnings:
        return "new warning", "; ".join(f"{w.category}: {w.message}" for w in warnings)
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
