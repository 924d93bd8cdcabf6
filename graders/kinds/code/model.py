"""What an exercise file of kind ``code`` holds (validated by pydantic, with locations)."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, Field, StringConstraints

from ...course.model import ExerciseBase, Ident, Strict
from ...course.text import Text
from .samples import NO_PARENT, Sample

SOLUTIONS_DIR = "solutions"
PyName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


def _inside_course(path: str) -> str:
    if ".." in path.split("/"):
        raise ValueError("must be a path inside the course folder, without '..'")
    return path


CoursePath = Annotated[
    str,
    StringConstraints(pattern=r"^[\w.-]+(/[\w.-]+)*\.py$"),
    AfterValidator(_inside_course),
    Field(json_schema_extra=NO_PARENT),
]


class Check(Strict):
    """One graded property of the learner's function."""

    TEMPLATED: ClassVar[frozenset[str]] = frozenset({"explain"})  # with `params`
    id: Ident
    points: float = Field(1.0, gt=0)
    explain: Text


class CodeExercise(ExerciseBase):
    """An exercise file of kind ``code``.

    With ``params``, its texts and template are rendered per variant, and so are its
    reference solution and samples (``sources``); the checker gets the variant's values
    (``observe(fn, seed, params)``, ``judge(got, ref, params)``), so a parameter may be used
    by the checker alone (the shapes of its inputs).
    """

    TEMPLATED: ClassVar[frozenset[str]] = frozenset(
        {"title", "prompt", "signature", "template", "checks"}
    )
    PARAMS_REACH_CODE: ClassVar[bool] = True  # its checker reads them: none is unused

    kind: Literal["code"]
    prompt: Text
    entry: PyName
    signature: str
    template: str  # code, the same in every language
    solution: str = Field(pattern=r"^[\w.-]+\.py$")
    checker: CoursePath
    checks: list[Check] = Field(min_length=1)
    samples: list[Sample] = Field(default_factory=list)
    timeout_s: float | None = Field(None, gt=0, le=600)  # else derived from the reference's time
