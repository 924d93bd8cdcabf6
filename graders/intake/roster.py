"""The class roster: who should hand in an assignment, and how each LMS knows them.

    roster.csv   (beside course.yml, or ``--roster FILE``)
    student,name,email,section,sis_user_id,sis_login_id,lms_id,language,extra_hours
    ada,Ada Lovelace,ada@example.org,A1,2001,alovelace,1234,en,48

``student`` is graders' id for the student, the name of their submission folder, and
the only column required; the others may be left out or empty. ``lms_id`` is the LMS's
own user id, ``sis_user_id`` and ``sis_login_id`` the institution's ids; each LMS's
names for these columns are its module's (``lms.canvas``: "ID", "SIS User ID", "SIS Login
ID"; ``lms.moodle``: "ID number", "Username"), and a header that names a column as an
LMS does is told which column it is. ``language``, when given, is the course language a
learner's own notebook is released in (``graders release --roster``: one release serves a
class of both languages). ``extra_hours``, ``time_factor`` and ``extra_attempts`` are a learner's
standing accommodation, as ``graders accommodate`` gives one (a rule set by the command
counts over the roster's). The file is read whole and every problem is reported at once as
``roster.csv:LINE:COLUMN: message``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from ..errors import Location, Problem, SpecError, UsageError, did_you_mean
from ..lms.registry import registered
from .csv_rows import Record, Unreadable, read_records
from .identity import RULE, case_key, id_problem, lookalike_note, lookalikes, student_id

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
    language: str = ""  # the course language their notebooks speak (empty: the release's)
    extra_hours: str = ""  # an accommodation: hours on every due date (empty: none)
    time_factor: str = ""  # an accommodation: each window that opens, this many times as long
    extra_attempts: str = ""  # an accommodation: attempts beyond submissions.max
    line: int = 0  # where the student is in the roster file, for messages


COLUMNS = tuple(f.name for f in fields(RosterEntry) if f.name != "line")
# Two students cannot share these: an LMS would give one student's grade to the other.
UNIQUE = ("student", "email", "sis_user_id", "sis_login_id", "lms_id")


@dataclass(frozen=True)
class Roster:
    """The students of a course, in roster order."""

    path: Path
    entries: tuple[RosterEntry, ...]
    warnings: tuple[Problem, ...] = ()  # ids that look alike: maybe two people, maybe not

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
    """Read and check a roster; ``SpecError`` listing every problem, each at its place.

    Ids that look alike (``alice``, ``аlice``) are not problems: they may be two people;
    the roster keeps a warning naming both.
    """
    shown = str(path)
    try:
        records = read_records(path, shown, MAX_ROSTER_BYTES, "the roster")
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read: {exc.strerror or exc}") from exc
    except Unreadable as exc:
        raise SpecError([exc.problem]) from exc
    if not records:
        raise SpecError([Problem(Location(shown, 1, 1), "the roster is empty: no header row")])
    header, rows = records[0], records[1:]
    problems = _header_problems(shown, header)
    # An unnamed or unknown column is ignored, so the rows' own problems are reported too.
    names = [n if n in COLUMNS else "" for n in (c.strip().lower() for c in header.cells)]
    if "student" not in names:
        raise SpecError(problems)
    entries = []
    for record in rows:
        entry = _entry(shown, names, record, problems)
        if entry is not None:
            entries.append(entry)
    problems += _duplicates(shown, entries)
    if problems:
        raise SpecError(problems)
    return Roster(path, tuple(entries), _lookalike_warnings(shown, entries))


def _lookalike_warnings(shown: str, entries: list[RosterEntry]) -> tuple[Problem, ...]:
    line = {e.student: e.line for e in entries}
    pairs = (sorted(pair, key=line.__getitem__) for pair in lookalikes(line))
    return tuple(
        Problem(Location(shown, line[b], 1), f"warning: {lookalike_note(b, a)} (line {line[a]})")
        for a, b in pairs
    )


def _header_problems(shown: str, header: Record) -> list[Problem]:
    problems, seen = [], set()
    for index, name in enumerate(header.cells):
        key = name.strip().lower()
        where = Location(shown, *header.place(index))
        if not key:
            continue  # spreadsheet programs write trailing empty columns
        if key not in COLUMNS:
            hint = _lms_name(key) or did_you_mean(key, list(COLUMNS))
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


def _lms_name(key: str) -> str:
    """`` ({LMS}'s 'X' is the roster's 'y')`` when ``key`` is an LMS's name of a roster
    column, else empty."""
    for lms in registered():
        for column, name in lms.roster_names.items():
            if name.lower() == key:
                return f" ({lms.title}'s {name!r} is the roster's {column!r})"
    return ""


def _entry(
    shown: str, names: list[str], record: Record, problems: list[Problem]
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
    if (why := id_problem(student)) is not None:
        problems.append(Problem(where, f"student id {student!r} is not allowed: {why} ({RULE})"))
        return None
    email = values.get("email", "")
    if email and (email.count("@") != 1 or any(c.isspace() for c in email)):
        problems.append(Problem(Location(shown, *places["email"]), f"not an email: {email!r}"))
    for column, (low, high, kind) in ACCOMMODATION_RANGES.items():
        text = values.get(column, "")
        if text and not _in_range(text, low, high, kind):
            problems.append(
                Problem(
                    Location(shown, *places[column]),
                    f"{column} {text!r} is not {_WHAT[kind]} from {low:g} to {high:g}",
                )
            )
    known = {n: v for n, v in values.items() if n != "student"}
    return RosterEntry(student=student, line=record.line, **known)


# The accommodation columns: the least, the most, and the type of each.
ACCOMMODATION_RANGES: dict[str, tuple[float, float, type]] = {
    "extra_hours": (0, 24 * 365, float),
    "time_factor": (1, 10, float),
    "extra_attempts": (0, 1000, int),
}


_WHAT = {float: "a number", int: "a whole number"}


def _in_range(text: str, low: float, high: float, kind: type) -> bool:
    try:
        value = kind(text)
    except ValueError:
        return False
    return bool(low <= value <= high)


def _duplicates(shown: str, entries: list[RosterEntry]) -> list[Problem]:
    problems = []
    for column in UNIQUE:
        first: dict[str, RosterEntry] = {}
        for entry in entries:
            value = getattr(entry, column)
            if not value:
                continue
            # An email compares regardless of case, as the LMS compares it; a student id
            # too, as a disk that ignores case would hold their files.
            key = value.lower() if column == "email" else value
            key = case_key(value) if column == "student" else key
            if key in first:
                earlier = first[key]
                whose = "" if column == "student" else f" ({earlier.student})"
                if getattr(earlier, column) != value:
                    whose += f" as {getattr(earlier, column)!r}"
                message = f"{column} {value!r} is already on line {earlier.line}{whose}"
                problems.append(Problem(Location(shown, entry.line, 1), message))
            else:
                first[key] = entry
    return problems
