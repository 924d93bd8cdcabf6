"""The model of a ``kind: predict`` exercise file: questions and their misconceptions."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from ...answers.judging import LESSONS, Lesson, Rules
from ...course.model import SECTIONS, ExerciseBase, Ident, Strict
from ...course.text import Text
from ...errors import did_you_mean


def _as_literal(value: Any) -> Any:
    # YAML turns `answer: False` into a bool; the learner's form of it is the text "False".
    return repr(value) if isinstance(value, (bool, int, float)) or value is None else value


AnswerText = Annotated[str, BeforeValidator(_as_literal)]


def _lesson(value: Any) -> Any:
    # Said before pydantic's "Input should be 'dtype' or 'type'", with a did-you-mean.
    if isinstance(value, str) and value not in LESSONS:
        hint = did_you_mean(value, list(LESSONS))
        raise ValueError(
            f"'{value}' is not a lesson a question keeps strict ({', '.join(LESSONS)}){hint}"
        )
    return value


# What a question's lesson is, kept strict when its answer is compared (`judging.Rules`).
StrictLesson = Annotated[Lesson, BeforeValidator(_lesson)]


class Misconception(Strict):
    """A typical wrong answer, the idea it reveals, and the explanation that targets it."""

    TEMPLATED: ClassVar[frozenset[str]] = frozenset({"answer", "explain"})  # with `params`
    answer: AnswerText
    name: Ident
    explain: Text


def _question_schema(schema: dict[str, Any]) -> None:
    # What the validator below and `graders validate` say, for editors: code is a string,
    # exactly one of `expr` and `run`, a section the article has (or `beyond`).
    properties = schema["properties"]
    for source in ("expr", "run"):
        properties[source] = {"type": "string", "title": source.capitalize()}
    properties["section"] = {"enum": list(SECTIONS), "title": "Section"}
    schema["oneOf"] = [{"required": ["expr"]}, {"required": ["run"]}]


class Question(Strict):
    """One prediction."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra=_question_schema)

    TEMPLATED: ClassVar[frozenset[str]] = frozenset(
        {"prompt", "expr", "run", "explain", "misconceptions"}
    )  # what parameters are substituted into (not `article_says`: what the article printed)
    id: Ident
    # The ids this question had before, in this exercise (``course/renames.py``).
    formerly: list[Ident] = []
    prompt: Text
    expr: str | None = None
    run: str | None = None
    points: float = Field(1.0, gt=0)
    explain: Text
    # The explanation gives nothing of the expected answer away: a learner who answered
    # wrong reads it before the key is shown (else it comes with the key). `graders
    # validate` looks for the expected answer in it, in every language and variant.
    explain_before_due: bool = False
    misconceptions: list[Misconception] = []
    # Other answers that earn the points too, where the lesson allows them: `Warning` for a
    # truth that is a UserWarning, `Exception` for a RuntimeError. Never guessed: only these.
    accept: list[AnswerText] = []
    article_says: AnswerText | None = None
    # Where it differs from the exercise's (a question going beyond the article).
    section: str | None = None
    # The lesson is the type: `dtype` (an int is not a float), `type` (a list or a number
    # is not a tensor, a tensor not a number). Else answers are graded by value.
    strict: list[StrictLesson] = []

    @model_validator(mode="after")
    def _one_of_expr_run(self) -> Question:
        if (self.expr is None) == (self.run is None):
            raise ValueError(
                "give exactly one of 'expr' (a value to predict) or 'run' "
                "(a statement whose outcome to predict)"
            )
        return self

    @property
    def rules(self) -> Rules:
        """How this question's answers are compared: strict where its lesson is the type."""
        return Rules.keeping(self.strict)

    @property
    def source_field(self) -> str:
        """Which field holds the question's code: ``expr`` or ``run``."""
        return "expr" if self.expr is not None else "run"


class PredictExercise(ExerciseBase):
    """An exercise file of kind ``predict``."""

    TEMPLATED: ClassVar[frozenset[str]] = frozenset({"title", "setup", "questions"})
    kind: Literal["predict"]
    setup: str = ""
    questions: list[Question] = Field(min_length=1)
