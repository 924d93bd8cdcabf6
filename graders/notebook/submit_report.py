"""The service's feedback on one submission, as ``submit`` shows it: text in a terminal,
HTML in a notebook's output, in the notebook's language.

It shows only what the service returned (``GET /api/submissions/{id}``): the service has
already left out what the course's visibility rule keeps from the learner today (the
expected answers before the due date, say), so nothing here decides what may be seen.
Questions are named as the notebook names them (its ``labels``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..i18n import _, ngettext, punctuated, speaking
from ..results import STATUS_WORDS, Status, format_points

GRADED, FAILED = "graded", "failed"


@dataclass(frozen=True)
class Review:
    """A question the learner did not get every point of."""

    label: str
    status: str
    points: float
    max_points: float
    feedback: str
    expected: str | None

    def verdict(self) -> str:
        said = _(STATUS_WORDS.get(self.status, self.status))
        points = f"{format_points(self.points)} / {format_points(self.max_points)}"
        return f"{said}{punctuated(', ')}{points}"


@dataclass(frozen=True)
class Feedback:
    """One graded (or failed) submission as the service showed it to its learner."""

    submission: int
    assignment: str
    status: str  # graded | failed
    score: float | None
    max_score: float | None
    late_factor: float | None
    counted: bool  # this attempt is the learner's grade of record
    attempts_left: int | None  # None: no limit
    error: str | None
    review: tuple[Review, ...]
    answered: int  # how many questions the service returned
    language: str
    attempt: int | None = None  # the learner's own count (a service before it: None)

    @classmethod
    def from_json(
        cls, data: Mapping[str, Any], labels: Mapping[str, str], language: str
    ) -> Feedback:
        """The service's JSON of a submission; ``labels``: the notebook's question names."""
        status = str(data.get("status", ""))
        questions = [q for q in data.get("questions") or [] if isinstance(q, dict)]
        if status != GRADED:
            questions = []  # nothing was graded: nothing to review
        return cls(
            submission=int(data["id"]),
            assignment=str(data.get("assignment", "")),
            status=status,
            score=_number(data.get("score")),
            max_score=_number(data.get("max_score")),
            late_factor=_number(data.get("late_factor")),
            counted=data.get("counted") is True,
            attempt=data["attempt"] if isinstance(data.get("attempt"), int) else None,
            attempts_left=_whole(data.get("attempts_left")),
            error=str(data["error"]) if data.get("error") else None,
            review=tuple(_review(q, labels) for q in questions if _missed(q)),
            answered=len(questions),
            language=language,
        )

    def lines(self) -> list[str]:
        """What the learner reads, a line each (``text`` and ``html`` both show these)."""
        with speaking(self.language):
            if self.status == FAILED:
                text = _(
                    "The service could not grade submission {id} of {assignment}: {error} It "
                    "costs you no attempt."
                )
                return [
                    text.format(id=self.submission, assignment=self.assignment, error=self.error)
                ]
            # Why a graded submission scored what it did when no question says (handed in
            # past the cutoff, or not readable), as the service said it.
            why = [self.error] if self.error else []
            return [self._score(), *why, *self._standing(), *self._review_head()]

    def text(self) -> str:
        with speaking(self.language):
            lines = self.lines()
            shared = self._shared()
            for item in self.review:
                lines.append(f"  - {item.label}{punctuated(': ')}{item.verdict()}")
                lines += [f"    {line}" for line in _details(item, shared)]
            return "\n".join([*lines, *_about_every(shared)])

    def html(self) -> str:
        """A small block of HTML (everything escaped; no script, no outside style)."""
        with speaking(self.language):
            head = "".join(f"<p>{html.escape(line)}</p>" for line in self.lines())
            shared = self._shared()
            items = "".join(_item_html(item, shared) for item in self.review)
            listed = f"<ul>{items}</ul>" if items else ""
            tail = "".join(f"<p>{inline_html(line)}</p>" for line in _about_every(shared))
            lang = html.escape(self.language)
            return f'<div class="graders-feedback" lang="{lang}">{head}{listed}{tail}</div>'

    def _repr_html_(self) -> str:  # IPython's rich display of a value
        return self.html()

    def __str__(self) -> str:
        return self.text()

    def _score(self) -> str:
        score = format_points(self.score or 0.0)
        most = format_points(self.max_score or 0.0)
        if self.attempt is None:
            return _("Submission {id} of {assignment}: {score} / {max} points.").format(
                id=self.submission, assignment=self.assignment, score=score, max=most
            )
        return _("Your attempt {number} at {assignment}: {score} / {max} points.").format(
            number=self.attempt, assignment=self.assignment, score=score, max=most
        )

    def _standing(self) -> list[str]:
        lines = []
        if self.late_factor is not None and self.late_factor < 1:
            text = _("Submitted late: your points are multiplied by {factor}.")
            lines.append(text.format(factor=format_points(self.late_factor)))
        if self.counted:
            lines.append(_("This submission is your grade of record."))
        else:
            lines.append(_("Another of your submissions stays your grade of record."))
        if self.attempts_left is not None:
            left = ngettext(
                "You have {n} attempt left.", "You have {n} attempts left.", self.attempts_left
            )
            lines.append(left.format(n=self.attempts_left))
        return lines

    def _shared(self) -> list[str]:
        """The lines every reviewed question's feedback ends with ("The explanation of this
        question comes with the expected answer."), in any language: said once, after the
        list, not once per question."""
        if len(self.review) < 2:
            return []
        feedbacks = [item.feedback.splitlines() for item in self.review]
        shared: list[str] = []
        while all(len(f) > len(shared) for f in feedbacks):
            line = feedbacks[0][-1 - len(shared)]
            if not line.strip() or any(f[-1 - len(shared)] != line for f in feedbacks):
                break
            shared.insert(0, line)
        return shared

    def _review_head(self) -> list[str]:
        if self.review:
            return [_("To review ({n}):").format(n=len(self.review))]
        return [_("Every answer is correct.")] if self.answered else []


def _about_every(shared: list[str]) -> list[str]:
    """The lines every listed question ends with, said once after the list, and said to be
    about each of them (alone, "this question" would name none)."""
    return [_("About every question above:"), *shared] if shared else []


def _review(data: Mapping[str, Any], labels: Mapping[str, str]) -> Review:
    ident = str(data.get("id", ""))
    expected = data.get("expected")
    return Review(
        label=_label(ident, labels),
        status=str(data.get("status", "")),
        points=_number(data.get("points")) or 0.0,
        max_points=_number(data.get("max_points")) or 0.0,
        feedback=str(data.get("feedback") or "").strip(),
        expected=str(expected) if expected is not None else None,
    )


def _missed(data: Mapping[str, Any]) -> bool:
    """Left to review: not correct, and not given every point by the instructor."""
    points, most = _number(data.get("points")) or 0.0, _number(data.get("max_points")) or 0.0
    if data.get("override"):
        return points < most
    return data.get("status") != Status.CORRECT.value


def _label(ident: str, labels: Mapping[str, str]) -> str:
    """How the notebook names a question: its label, or its exercise's with the check's
    name (a code exercise's checks share their exercise's one answer cell)."""
    if ident in labels:
        return labels[ident]
    exercise, _slash, check = ident.partition("/")
    return f"{labels[exercise]} ({check})" if exercise in labels and check else ident


def _details(item: Review, shared: list[str] = []) -> list[str]:  # noqa: B006 - read only
    lines = item.feedback.splitlines()
    if shared:
        lines = lines[: len(lines) - len(shared)]
        while lines and not lines[-1].strip():
            lines.pop()
    if item.expected is not None:
        lines.append(_("Expected: {expected}").format(expected=item.expected))
    return lines


def _item_html(item: Review, shared: list[str]) -> str:
    details = "".join(f"<br>{inline_html(line)}" for line in _details(item, shared))
    return (
        f"<li><strong>{html.escape(item.label)}</strong>: {html.escape(item.verdict())}"
        f"{details}</li>"
    )


# Author text is CommonMark; the learner's install has no Markdown renderer, and a line of
# feedback uses two of its marks: code spans (`clone()`, ``a `b` c``) and strong emphasis.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")


def inline_html(line: str) -> str:
    """One line of feedback as HTML: everything escaped, its code spans as ``<code>`` and its
    ``**strong**`` words as ``<strong>`` (never inside a code span), as the pages show them."""
    out, start = [], 0
    for span in _CODE_SPAN.finditer(line):
        out.append(_strong(line[start : span.start()]))
        code = span.group(2)
        if len(code) > 2 and code[0] == code[-1] == " ":
            code = code[1:-1]  # CommonMark: one space each side makes room for a backtick
        out.append(f"<code>{html.escape(code)}</code>")
        start = span.end()
    out.append(_strong(line[start:]))
    return "".join(out)


def _strong(text: str) -> str:
    return _STRONG.sub(r"<strong>\1</strong>", html.escape(text))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
