"""The class roster: who should hand in an assignment, and how each LMS knows them.

    roster.csv   (beside course.yml, or ``--roster FILE``)
    student,name,email,section,sis_user_id,sis_login_id,lms_id
    ada,Ada Lovelace,ada@example.org,A1,2001,alovelace,1234

``student`` is graders' id for the student, the name of their submission folder, and
the only column required; the others may be left out or empty. ``lms_id`` is the LMS's
own user id (Canvas's "ID"), ``sis_user_id`` and ``sis_login_id`` the institution's ids
that Canvas shows as "SIS User ID" and "SIS Login ID" (Moodle's "ID number" and
"username"). The file is read whole and every problem is reported at once as
``roster.csv:LINE:COLUMN: message``.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path

from ..errors import Location, Problem, SpecError, UsageError, did_you_mean
from .student_ids import RULE, safe_student, student_id

ROSTER_FILE = "roster.csv"
MAX_ROSTER_BYTES = 8 * 1024 * 1024  # tens of thousands of students; anything larger is a mistake


@dataclass(frozen=True)
class RosterEntry:
    """One student of the roster (every column but ``student`` may be empty)."""

    student: str
    name: str = ""
    email: str = ""
    section: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""
    lms_id: str = ""
    line: int = 0  # where the student is in the roster file, for messages


COLUMNS = tuple(f.name for f in fields(RosterEntry) if f.name != "line")
# Two students cannot share these: an LMS would give one student's grade to the other.
UNIQUE = ("student", "email", "sis_user_id", "sis_login_id", "lms_id")


@dataclass(frozen=True)
class Roster:
    """The students of a course, in roster order."""

    path: Path
    entries: tuple[RosterEntry, ...]

    def __contains__(self, student: object) -> bool:
        return any(e.student == student for e in self.entries)

    def get(self, student: str) -> RosterEntry | None:
        return next((e for e in self.entries if e.student == student), None)

    def by_lms_id(self, lms_id: str) -> RosterEntry | None:
        """The student the LMS knows by ``lms_id`` (its own user id), if the roster says."""
        return next((e for e in self.entries if lms_id and e.lms_id == lms_id), None)

    @property
    def students(self) -> tuple[str, ...]:
        return tuple(e.student for e in self.entries)


def find_roster(course_root: Path, explicit: Path | None = None) -> Roster | None:
    """``--roster FILE`` when given (it must exist), else ``roster.csv`` beside course.yml."""
    if explicit is not None:
        if not explicit.is_file():
            raise UsageError(f"no roster at {explicit}")
        return load_roster(explicit)
    default = course_root / ROSTER_FILE
    return load_roster(default) if default.is_file() else None


def load_roster(path: Path) -> Roster:
    """Read and check a roster; ``SpecError`` listing every problem, each at its place."""
    shown = str(path)
    text = _read_text(path, shown)
    try:
        records = list(_records(text))
    except _Unreadable as exc:
        raise SpecError([Problem(Location(shown, exc.line, 1), f"not CSV: {exc}")]) from exc
    if not records or not any(c.strip() for c in records[0].cells):
        raise SpecError([Problem(Location(shown, 1, 1), "the roster is empty: no header row")])
    header, rows = records[0], records[1:]
    problems = _header_problems(shown, header)
    if problems:
        raise SpecError(problems)
    names = [c.strip().lower() for c in header.cells]  # an unnamed column is ignored
    entries = []
    for record in rows:
        entry = _entry(shown, names, record, problems)
        if entry is not None:
            entries.append(entry)
    problems += _duplicates(shown, entries)
    if problems:
        raise SpecError(problems)
    return Roster(path, tuple(entries))


@dataclass(frozen=True)
class _Record:
    """One CSV record, with where each of its cells starts in the file."""

    cells: list[str]
    places: list[tuple[int, int]]  # (line, column) of each cell, 1-based

    @property
    def line(self) -> int:
        return self.places[0][0]

    def place(self, index: int) -> tuple[int, int]:
        """Where cell ``index`` starts (the last known place past the end)."""
        return self.places[min(index, len(self.places) - 1)]


def _read_text(path: Path, shown: str) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_ROSTER_BYTES:
            raise SpecError([Problem(Location(shown), f"{size} bytes is too large for a roster")])
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read: {exc.strerror or exc}") from exc
    try:
        return raw.decode("utf-8-sig")  # spreadsheet programs often start the file with a BOM
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        message = f"byte 0x{raw[exc.start]:02x} is not UTF-8: save the roster as UTF-8 CSV"
        raise SpecError([Problem(Location(shown, line, column), message)]) from exc


def _records(text: str) -> Iterator[_Record]:
    """Every non-blank record of ``text``, with the place of each cell."""
    lines = text.splitlines(keepends=True)
    reader = csv.reader(lines, strict=True)
    done = 0  # physical lines consumed so far
    try:
        for cells in reader:
            first, done = done + 1, reader.line_num
            if not cells or not any(c.strip() for c in cells):
                continue
            raw = "".join(lines[first - 1 : done])
            yield _Record(cells, _cell_places(raw, first))
    except csv.Error as exc:
        raise _Unreadable(done + 1, str(exc)) from exc


class _Unreadable(Exception):
    """The CSV itself is malformed (a stray quote) from ``line`` on."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def _cell_places(raw: str, first_line: int) -> list[tuple[int, int]]:
    # Where each cell starts: after each comma outside quotes (a doubled quote toggles twice).
    places, line, column, quoted = [(first_line, 1)], first_line, 1, False
    for char in raw:
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            places.append((line, column + 1))
        elif char == "\n":
            line, column = line + 1, 0
        column += 1
    return places


def _header_problems(shown: str, header: _Record) -> list[Problem]:
    problems, seen = [], set()
    for index, name in enumerate(header.cells):
        key = name.strip().lower()
        where = Location(shown, *header.place(index))
        if not key:
            continue  # spreadsheet programs write trailing empty columns
        if key not in COLUMNS:
            hint = did_you_mean(key, list(COLUMNS))
            problems.append(
                Problem(
                    where, f"unknown column {name!r}{hint}; the columns are {', '.join(COLUMNS)}"
                )
            )
        elif key in seen:
            problems.append(Problem(where, f"column {key!r} appears twice"))
        seen.add(key)
    if "student" not in seen:
        problems.append(
            Problem(
                Location(shown, header.line, 1),
                "no 'student' column: it holds each student's id, their submission folder's name",
            )
        )
    return problems


def _entry(
    shown: str, names: list[str], record: _Record, problems: list[Problem]
) -> RosterEntry | None:
    if len(record.cells) > len(names):
        problems.append(
            Problem(
                Location(shown, *record.place(len(names))),
                f"{len(record.cells)} cells, but the header names {len(names)} columns",
            )
        )
        return None
    values = {n: c.strip() for n, c in zip(names, record.cells, strict=False) if n}
    places = {n: record.place(i) for i, n in enumerate(names) if n}
    student = student_id(values.get("student", ""))
    where = Location(shown, *places["student"])
    if not student:
        problems.append(Problem(where, "no student id in this row"))
        return None
    if not safe_student(student):
        problems.append(Problem(where, f"student id {student!r} is not allowed ({RULE})"))
        return None
    email = values.get("email", "")
    if email and (email.count("@") != 1 or any(c.isspace() for c in email)):
        problems.append(Problem(Location(shown, *places["email"]), f"not an email: {email!r}"))
    known = {n: v for n, v in values.items() if n != "student"}
    return RosterEntry(student=student, line=record.line, **known)


def _duplicates(shown: str, entries: list[RosterEntry]) -> list[Problem]:
    problems = []
    for column in UNIQUE:
        first: dict[str, RosterEntry] = {}
        for entry in entries:
            value = getattr(entry, column)
            if not value:
                continue
            # Ids compare as the LMS compares them: an email regardless of case.
            key = value.lower() if column == "email" else value
            if key in first:
                earlier = first[key]
                whose = "" if column == "student" else f" ({earlier.student})"
                message = f"{column} {value!r} is already on line {earlier.line}{whose}"
                problems.append(Problem(Location(shown, entry.line, 1), message))
            else:
                first[key] = entry
    return problems
