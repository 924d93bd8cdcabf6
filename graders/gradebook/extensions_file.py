"""``extensions.yml``: extensions for a whole list of students, beside ``course.yml``.

    - student: ada
      assignment: ps1
      days: 2                       # after the assignment's due date
      reason: "ill, note from the student office"
    - students: [bob, chen]         # several students, one decision
      assignment: ps2
      until: "2036-10-15T23:59:00+02:00"

Every problem is reported at once, as ``extensions.yml:line:column: message``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pydantic import AwareDatetime, Field, ValidationError, model_validator

from ..course.loaded import LoadedCourse
from ..course.marks import Marks, dotted, read_yaml
from ..course.model import Ident, Strict
from ..errors import Location, Problem, SpecError, did_you_mean
from ..intake.identity import safe_student

EXTENSIONS_FILE = "extensions.yml"


class _Entry(Strict):
    student: str | None = None
    students: list[str] | None = None
    assignment: Ident
    days: float | None = Field(None, gt=0, le=366)
    until: AwareDatetime | None = None
    reason: str | None = None

    @model_validator(mode="after")
    def _one_of_each(self) -> _Entry:
        if (self.student is None) == (self.students is None):
            raise ValueError("give one of student or students")
        if (self.days is None) == (self.until is None):
            raise ValueError("give one of days or until")
        return self

    def who(self) -> list[str]:
        return [self.student] if self.student is not None else list(self.students or [])


@dataclass(frozen=True)
class FileExtension:
    """One student's extension as the file lists it."""

    student: str
    assignment: str
    due: datetime
    reason: str | None
    location: Location  # where the entry is, for the audit trail


def read_extensions_file(loaded: LoadedCourse) -> list[FileExtension]:
    """The extensions ``extensions.yml`` lists ([] when there is no such file)."""
    path = loaded.root / EXTENSIONS_FILE
    if not path.is_file():
        return []
    data, marks, problems = read_yaml(path, EXTENSIONS_FILE)
    found: list[FileExtension] = []
    if data is not None and not isinstance(data, list):
        problems.append(Problem(marks.at(()), "expected a list of extensions"))
    for index, item in enumerate(data if isinstance(data, list) else []):
        found += _entry(loaded, item, index, marks, problems)
    problems += _repeats(found)
    if problems:
        raise SpecError(problems)
    return found


def _entry(
    loaded: LoadedCourse, item: Any, index: int, marks: Marks, problems: list[Problem]
) -> list[FileExtension]:
    try:
        entry = _Entry.model_validate(item)
    except ValidationError as exc:
        for err in exc.errors():
            message = str(err["msg"]).removeprefix("Value error, ")
            field = f"{dotted(err['loc'])}: " if err["loc"] else ""
            problems.append(Problem(marks.at((index, *err["loc"])), field + message))
        return []
    assignment = loaded.course.assignment(entry.assignment)
    if assignment is None:
        ids = [a.id for a in loaded.course.assignments]
        message = f"no assignment '{entry.assignment}'{did_you_mean(entry.assignment, ids)}"
        problems.append(Problem(marks.at((index, "assignment")), message))
        return []
    due = entry.until or assignment.due + timedelta(days=entry.days or 0)
    if due <= assignment.due:
        where = marks.at((index, "until"))
        problems.append(Problem(where, f"ends before {assignment.id}'s due date"))
        return []
    field = "student" if entry.student is not None else "students"
    at = marks.at((index,))
    out = []
    for student in entry.who():
        if not safe_student(student):
            problems.append(Problem(marks.at((index, field)), f"not a student id: {student!r}"))
            continue
        out.append(FileExtension(student, entry.assignment, due, entry.reason, at))
    return out


def _repeats(found: list[FileExtension]) -> list[Problem]:
    seen: dict[tuple[str, str], Location] = {}
    problems = []
    for ext in found:
        key = (ext.assignment, ext.student)
        if key in seen:
            message = (
                f"{ext.student} has a second extension for {ext.assignment} (first: {seen[key]})"
            )
            problems.append(Problem(ext.location, message))
        seen.setdefault(key, ext.location)
    return problems
