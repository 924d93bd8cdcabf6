"""The kind contract: what graders asks an exercise kind, split by who asks it.

A kind is a registry entry (``registry``), never a branch: nothing outside ``kinds/`` asks
which kind an exercise is. Every kind fulfils four parts, each asked by its own callers
(``tests/kinds/test_kind_contract.py`` holds each folder to the parts it may call):

    CourseSide     every layer      its model, the problems the model cannot see, its
                                    items, answer keys and the course files it needs
    GradingSide    grading          its state prepared in torch once (kept by the
                                    caller's ``TruthStore``), a submission's answers,
                                    its sandbox jobs and their grading, the key
    NotebookSide   notebooks        its cells laid out, named, and read back
    ReportSide     reports          how its answers aggregate in a class report

and may offer optional capabilities, each a Protocol of its own, found by the registry
when the kind registers (never by looking for a method at the call):

    SelfTesting      ``validate`` grades the exercise's own samples
    PreloadsSandbox  modules the warm fork servers import before forking

``registry.register`` refuses a class that misses a member of a part, or whose method
takes other parameters than the contract names, with the member and what was expected.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from ..course.kinds import CourseSide
from ..said import Told
from .base import (
    Context,
    DeclaredMisconception,
    ExerciseAnswers,
    Reading,
    Submission,
    TruthStore,
)

if TYPE_CHECKING:
    from ..course.marks import Marks
    from ..course.model import ExerciseBase
    from ..errors import Problem
    from ..results import QuestionResult
    from ..sandbox import Job
    from .notebook_side import Part, Placed

E = TypeVar("E", bound="ExerciseBase")
E_in = TypeVar("E_in", bound="ExerciseBase", contravariant=True)  # a part that only reads E
P = TypeVar("P")


class GradingSide(Protocol[E_in, P]):
    """What the grading pipeline asks: ``P`` is the kind's prepared state, a frozen value."""

    def prepare(self, exercise: E_in, ctx: Context, store: TruthStore) -> P:
        """Compute, in torch, what answers are judged against, through ``store`` (the
        caller's: it keeps each result between runs, keyed as the kind says)."""

    def prepare_many(self, exercises: Sequence[E_in], ctx: Context, store: TruthStore) -> list[P]:
        """``prepare`` for the variants of one exercise (together, where the kind can)."""

    def fingerprint(self, prepared: P) -> Any:
        """The prepared state as JSON: a grade is redone when it changes."""

    def problems(self, exercise: E_in, prepared: P, marks: Marks) -> list[Problem]:
        """Problems found while preparing (a truth that cannot be computed)."""

    def given(self, exercise: E_in, submission: Submission) -> ExerciseAnswers:
        """What ``submission`` answers for this exercise."""

    def jobs(self, exercise: E_in, prepared: P, given: ExerciseAnswers, ctx: Context) -> list[Job]:
        """The sandbox jobs ``grade`` will run for these answers (none for most kinds).

        The pipeline runs a submission's jobs together, in one child where it can
        (``grading.prefetch``), before it calls ``grade``.
        """

    def grade(
        self, exercise: E_in, prepared: P, given: ExerciseAnswers, ctx: Context
    ) -> list[QuestionResult]:
        """Grade one submission's answers for this exercise."""

    def key(self, exercise: E_in, prepared: P) -> dict[str, str]:
        """Answer key -> what a learner should write to earn full marks."""


class NotebookSide(Protocol):
    """What notebooks ask: the kind's cells laid out, named, and read back (never run).

    A notebook's reader needs only ``cell_tag``, ``read_cell`` and ``cell_problem``, which it
    takes from the kind's cells module (``registry.cell_readers``) without loading the kind.
    """

    cell_tag: str  # the key of metadata.graders that marks this kind's answer cells

    def layout(self, placed: Placed, key: Mapping[str, str]) -> list[Part]:
        """The exercise's parts of a notebook (``key`` may be empty)."""

    def labels(self, placed: Placed) -> dict[str, str]:
        """Answer key and item id -> how the notebook names it (``Question 1.2``)."""

    def hint(self) -> str:
        """How to answer this kind's cells, for a notebook's introduction."""

    def read_cell(self, source: str, meta: Mapping[str, Any]) -> Reading:
        """What a submitted answer cell of this kind says (nothing in it is run)."""

    def cell_problem(self, source: str, meta: Mapping[str, Any]) -> Told | None:
        """For the pre-submit check: None unanswered, "" readable, else why it cannot be read."""

    def kernel_answer(self, value: Any) -> str | None:
        """A value an nbgrader test cell passes (the learner's object in the kernel) as the
        text of this kind's answer cell; None: unanswered."""


class ReportSide(Protocol[E_in]):
    """What a class report asks: how the kind's answers aggregate."""

    literal_answers: bool  # answers are literals: a report groups wrong ones by their form

    def misconceptions(self, exercise: E_in) -> dict[str, tuple[DeclaredMisconception, ...]]:
        """Item id -> the misconceptions it declares (for the class report)."""


class Kind(CourseSide[E], GradingSide[E, P], NotebookSide, ReportSide[E], Protocol[E, P]):
    """The whole contract: every part; ``E`` is the kind's model, ``P`` its prepared state."""


AnyKind = Kind[Any, Any]

PARTS: tuple[type, ...] = (CourseSide, GradingSide, NotebookSide, ReportSide)


@runtime_checkable
class SelfTesting(Protocol):
    """Optional: the exercise carries samples of learner work that ``validate`` grades."""

    def self_test(
        self, exercise: Any, prepared: Any, ctx: Context, marks: Marks, store: TruthStore
    ) -> list[Problem]:
        """Every sample graded, and where it went otherwise than it expects (kept in
        ``store`` like what ``prepare`` computes)."""


@runtime_checkable
class PreloadsSandbox(Protocol):
    """Optional: modules of the course the warm fork servers import before forking."""

    def sandbox_modules(self, exercise: Any, root: Path) -> dict[str, tuple[str, str]]:
        """Module name -> (file, source) for this exercise."""


CAPABILITIES: tuple[type, ...] = (SelfTesting, PreloadsSandbox)


@dataclass(frozen=True)
class Capabilities:
    """The optional capabilities one kind offers: each the kind itself, or None."""

    self_testing: SelfTesting | None = None
    preloads_sandbox: PreloadsSandbox | None = None


def members(part: type) -> dict[str, inspect.Signature | str]:
    """A part's members: method name -> its signature, attribute name -> its annotation."""
    found: dict[str, inspect.Signature | str] = {}
    for name, value in vars(part).items():
        if not name.startswith("_") and inspect.isfunction(value):
            found[name] = inspect.signature(value)
    for name, annotation in vars(part).get("__annotations__", {}).items():
        found[name] = str(annotation)
    return found


def unfulfilled(cls: type) -> list[str]:
    """What ``cls`` lacks of the contract, or gets wrong; empty when it fulfils it."""
    wrong: list[str] = []
    for part in PARTS:
        for name, wanted in members(part).items():
            wrong += _member_problems(cls, part, name, wanted, required=True)
    for capability in CAPABILITIES:
        for name, wanted in members(capability).items():
            wrong += _member_problems(cls, capability, name, wanted, required=False)
    return wrong


def capabilities_of(kind: object) -> Capabilities:
    """The optional capabilities ``kind`` offers (each checked whole by ``unfulfilled``)."""
    return Capabilities(
        self_testing=kind if isinstance(kind, SelfTesting) else None,
        preloads_sandbox=kind if isinstance(kind, PreloadsSandbox) else None,
    )


def _member_problems(
    cls: type, part: type, name: str, wanted: inspect.Signature | str, *, required: bool
) -> list[str]:
    where = f"{part.__name__}.{name}"
    if not hasattr(cls, name):
        return [f"no {where}"] if required else []
    value = getattr(cls, name)
    if isinstance(wanted, str):
        return _attribute_problems(where, value, wanted)
    if not callable(value):
        return [f"{where} must be a method"]
    expected = _parameter_names(wanted)
    given = _parameter_names(inspect.signature(value))
    if given != expected:
        return [f"{where} takes ({', '.join(given)}), the contract names ({', '.join(expected)})"]
    return []


def _attribute_problems(where: str, value: object, annotation: str) -> list[str]:
    kinds = {"str": str, "bool": bool}
    if annotation in kinds and not isinstance(value, kinds[annotation]):
        return [f"{where} must be a {annotation}, not {type(value).__name__}"]
    if annotation.startswith("type[") and not isinstance(value, type):
        return [f"{where} must be a class"]
    return []


def _parameter_names(signature: inspect.Signature) -> list[str]:
    return [name for name in signature.parameters if name != "self"]
