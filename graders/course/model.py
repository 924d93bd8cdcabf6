"""Frozen models of a course: ``Course``, ``Assignment`` and the exercise base that every
kind extends. No I/O here; ``load.py`` reads files into these models.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .params import Params, VariantsPolicy
from .text import DEFAULT_LANGUAGES, Language, Text, Translatable

Ident = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_-]*$", max_length=64)]
BEYOND = "beyond"  # what the article does not say: taught by the course on its own authority
# The article's "supplement" (补充) is a heading with nothing under it: nothing can be cited
# from it, and what a course teaches under that title is `beyond`.
SUPPLEMENT = "supplement"
SECTIONS = ("§1a", "§1b", "§2", "§3", "§4", "§5", BEYOND)


class Strict(BaseModel):
    """Immutable, rejects unknown keys (so a typo is an error, not a silent default)."""

    # Built when the class is made, not on first use (pydantic's defer_build): a first use
    # from two threads at once (the service's graders) could find the model half built.
    # `graders check` does not import the models at all.
    model_config = ConfigDict(frozen=True, extra="forbid")


class CourseLimits(Strict):
    """Default resource limits for running code, per job."""

    timeout_s: float = Field(10.0, gt=0, le=600)
    memory_mib: int = Field(2048, ge=256, le=65536)


class LatePolicy(Strict):
    """A penalty, as a fraction of the score, per started day late, and a hard cutoff.

    A submission up to ``grace_minutes`` after the due date is on time. Past the grace
    period, lateness counts from the due date itself, in started days (one minute past the
    grace period is one day), and past ``cutoff_days`` the score is 0.
    """

    penalty_per_day: float = Field(0.0, ge=0, le=1)
    cutoff_days: float = Field(0.0, ge=0)
    grace_minutes: float = Field(0.0, ge=0, le=24 * 60)

    def factor(self, due: datetime, submitted: datetime) -> float | None:
        """The multiplier for a submission, or None when it is past the cutoff."""
        late = submitted - due
        if late <= timedelta(minutes=self.grace_minutes):
            return 1.0
        if late > timedelta(days=self.cutoff_days):
            return None
        started_days = -(-late // timedelta(days=1))  # ceil: one minute late is one day
        return max(0.0, 1.0 - self.penalty_per_day * started_days)


class Shown(StrEnum):
    """What a learner is shown of a graded question, from least to most."""

    SCORE = "score"  # the points of each question
    CHECKS = "checks"  # and its status, the author's explanation, the misconception
    FULL = "full"  # and the expected answer, and how the answer differs from it

    @property
    def rank(self) -> int:
        return _SHOWN_RANK[self]


_SHOWN_RANK = {shown: rank for rank, shown in enumerate(Shown)}  # asked for every question


class FeedbackPolicy(Strict):
    """What learners see of their grades before the assignment closes, and after."""

    before_due: Shown = Shown.CHECKS
    after_due: Shown = Shown.FULL

    @model_validator(mode="after")
    def _never_less_later(self) -> FeedbackPolicy:
        if self.after_due.rank < self.before_due.rank:
            raise ValueError(
                f"after_due ({self.after_due}) shows less than before_due ({self.before_due})"
            )
        return self


class SubmissionPolicy(Strict):
    """How learners may hand an assignment in to ``graders serve``: how often, and which
    attempt is the grade of record.

    ``max``: attempts allowed (None: any number); ``every_s``: the least time between two;
    ``counts``: ``best`` (the highest score after the late policy) or ``last`` (the latest
    graded attempt).
    """

    max: int | None = Field(None, ge=1, le=10_000)
    every_s: float = Field(0.0, ge=0, le=7 * 24 * 3600)
    counts: Literal["best", "last"] = "best"


class RegradeRequestPolicy(Strict):
    """How learners may ask for a review of a graded question (``graders serve``):
    ``per_assignment`` requests at most, each within ``window_days`` of the day the
    learner could first see the expected answers (the assignment closed for them, or the
    attempt was graded after that)."""

    per_assignment: int = Field(3, ge=1, le=100)
    window_days: float = Field(7.0, gt=0, le=365)


class AssignmentItem(Strict):
    """An exercise in an assignment, with an optional override of its total points."""

    id: Ident
    points: float | None = Field(None, gt=0)


class Assignment(Strict):
    """A problem set: which exercises, when due, how lateness costs."""

    id: Ident
    title: Text
    # When the assignment opens (None: from its release): an accommodation's time factor
    # scales the window from ``opens`` to ``due``.
    opens: AwareDatetime | None = None
    due: AwareDatetime
    late: LatePolicy = Field(default_factory=LatePolicy)
    feedback: FeedbackPolicy = Field(default_factory=FeedbackPolicy)
    submissions: SubmissionPolicy = Field(default_factory=SubmissionPolicy)
    exercises: list[AssignmentItem] = Field(min_length=1)

    @model_validator(mode="after")
    def _opens_before_due(self) -> Assignment:
        if self.opens is not None and self.opens >= self.due:
            raise ValueError(f"opens ({self.opens.isoformat()}) is not before due")
        return self

    def due_on(self, due: datetime | None) -> Assignment:
        """The assignment as one learner has it, due at ``due`` (an extension; None: the
        course's), said in the course's zone wherever it is shown, as the course's own is:
        the gradebook keeps it in UTC."""
        if due is None or due == self.due:
            return self
        return self.model_copy(update={"due": due.astimezone(self.due.tzinfo)})

    @field_validator("exercises", mode="before")
    @classmethod
    def _short_form(cls, value: Any) -> Any:
        # `- clone-grad` is short for `- {id: clone-grad}`.
        if isinstance(value, list):
            return [{"id": v} if isinstance(v, str) else v for v in value]
        return value


class MisconceptionLabel(Strict):
    """How a learner reads a misconception's name (an exercise's ``name:`` is an id)."""

    name: Ident
    label: Text  # "changing .data is harmless", per language like every learner's text


class GlossaryTerm(Strict):
    """A term of the course, per language: ``{en: weight decay, zh: 权重衰减}``, and the
    other renderings a language must not use for it (``forbidden: {zh: [就地, 原地]}`` for
    ``in-place``, which the course keeps as it is)."""

    term: Text
    forbidden: dict[Language, list[Annotated[str, Field(min_length=1)]]] = {}


# A term's name as reports show it ("2026 fall", "2026 秋"): one line, short.
TermName = Annotated[str, StringConstraints(min_length=1, max_length=32, pattern=r"^[^\r\n]+$")]


class PastTerm(Strict):
    """The same course in an earlier term: the id its grades are kept under in the
    gradebook (each term's course has its own id, as each term's LMS course is its own),
    and the term's name."""

    id: Ident
    term: TermName


class Course(Strict, Translatable):
    """``course.yml``."""

    id: Ident
    title: Text
    description: Text = ""
    languages: list[Language] = Field(
        list(DEFAULT_LANGUAGES), min_length=1
    )  # the first is the default
    seed: int = 0
    limits: CourseLimits = Field(default_factory=CourseLimits)
    # Modules a code answer may import; None: torch's public modules the course uses, numpy
    # and a few of the standard library (the code kind's default list).
    code_imports: list[str] | None = None
    # The pip requirement learners install `graders check` from, as notebooks say it
    # ("autograd-graders @ git+https://..."); empty: graders of the version that released
    # them (``autograd-graders==VERSION``: the distribution's name, never a bare `graders`).
    learner_install: str = ""
    # At most this many variants per exercise with `params`; None: every combination.
    variants: VariantsPolicy | None = None
    assignments: list[Assignment] = Field(min_length=1)
    # What learners read for each misconception name the exercises declare; a name without
    # one reads as itself ("data-change-harmless": "data change harmless").
    misconceptions: list[MisconceptionLabel] = []
    # The course's terms, each per language ({en: weight decay, zh: 权重衰减}): graders
    # validate reports a text in another language that leaves one in the default language.
    glossary: list[GlossaryTerm] = []
    # Learners may ask for a review of a graded question, within these limits; None: they
    # may not (the service offers no request form).
    regrade_requests: RegradeRequestPolicy | None = None
    # This term's name in reports; empty: the course is not compared across terms.
    term: TermName | None = None
    # The course in earlier terms, in the order the course summary shows them, before this
    # term: it compares each question's figures across the terms the gradebook holds.
    earlier_terms: list[PastTerm] = []

    @field_validator("earlier_terms")
    @classmethod
    def _other_terms(cls, value: list[PastTerm], info: ValidationInfo) -> list[PastTerm]:
        if value and not info.data.get("term"):
            raise ValueError("name this term too (term: ...) to compare it with earlier terms")
        ids = [t.id for t in value]
        if info.data.get("id") in ids:
            raise ValueError(f"'{info.data['id']}' is this course's id, not an earlier term's")
        names = [t.term for t in value] + [info.data.get("term")]
        repeated = sorted(
            {x for x in ids if ids.count(x) > 1}
            | {x for x in names if x is not None and names.count(x) > 1}
        )
        if repeated:
            raise ValueError(f"terms listed twice: {', '.join(repeated)}")
        return value

    @field_validator("languages")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        repeated = sorted({x for x in value if value.count(x) > 1})
        if repeated:
            raise ValueError(f"languages listed twice: {', '.join(repeated)}")
        return value

    def assignment(self, assignment_id: str) -> Assignment | None:
        return next((a for a in self.assignments if a.id == assignment_id), None)

    def other_assignments(self, assignment_id: str) -> tuple[str, ...]:
        """The ids of the course's assignments but ``assignment_id``: a notebook named for
        one of them is never taken for this one (``intake.notebook_choice``)."""
        return tuple(a.id for a in self.assignments if a.id != assignment_id)

    def misconception_labels(self) -> dict[str, str]:
        """Misconception name -> what learners read for it, in this model's language."""
        return {m.name: m.label for m in self.misconceptions}


def read_as(name: str, labels: Mapping[str, str]) -> str:
    """A misconception as a learner reads it: its label, else its name in words."""
    return labels.get(name) or name.replace("-", " ")


class ExerciseBase(Strict, Translatable):
    """Fields every exercise has, whatever its kind."""

    id: Ident
    # The ids this exercise had before (the oldest first): results, answers files and
    # notebooks that name one are read under ``id`` (``course/renames.py``), and a learner's
    # variant is still drawn by the oldest, so a rename changes no one's tensors.
    formerly: list[Ident] = []
    title: Text
    section: str
    kind: str
    # Values substituted into the exercise's templates (``course/params.py``); none: the
    # exercise is used exactly as written.
    params: Params = Field(default_factory=dict)

    @property
    def drawn_as(self) -> str:
        """The id variants are drawn by: the first the exercise ever had."""
        return self.formerly[0] if self.formerly else self.id

    def content_hash(self) -> str:
        """A stable hash of all that defines this exercise (for caches), whatever its language."""
        data = self.in_default_language().model_dump(mode="json")
        if not data.get("params"):
            del data["params"]  # the hash an exercise had before parameters existed
        _drop_empty(data, "formerly")  # and before exercises and questions were renamed
        blob = json.dumps(data, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def _drop_empty(data: Any, key: str) -> None:
    """Remove ``key`` wherever it holds an empty list, in nested dicts and lists."""
    if isinstance(data, dict):
        if data.get(key) == []:
            del data[key]
        for value in data.values():
            _drop_empty(value, key)
    elif isinstance(data, list):
        for value in data:
            _drop_empty(value, key)


def section_ok(section: str) -> bool:
    """Is this one of the article's sections that exercises may cite?"""
    return section in SECTIONS


def not_a_section(section: str, hint: str = "") -> str:
    """The message for a section that exercises may not cite."""
    if section == SUPPLEMENT:
        hint = f" (the article's supplement is an empty heading: cite '{BEYOND}')"
    return f"'{section}' is not an article section ({', '.join(SECTIONS)}){hint}"


def in_article(section: str | None) -> bool:
    """Does ``section`` name a part of the article (rather than what goes beyond it)?"""
    return bool(section) and section != BEYOND


def section_label(section: str) -> str:
    """A section as readers see it: '§2', or 'beyond the article'."""
    from ..i18n import _

    return _("beyond the article") if section == BEYOND else section


def json_ready(model: BaseModel) -> dict[str, Any]:
    """A model as plain JSON data."""
    return model.model_dump(mode="json")
