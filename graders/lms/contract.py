"""What an LMS module declares: the names of its files and the columns it reads.

    Lms        name, title, roster_names (roster column -> the LMS's name for it),
               download (how its bulk download names a learner's file), export (its
               grade import file)
    Download   the pattern of a bulk download's file names, and how it is shown
    LmsExport  the LMS's grade import file: its options, the rows above the learners',
               each learner's line
    Line       what an export makes of one learner: their row, or why they are left out

An export's functions receive typed values (a ``StudentResult``, the learner's
``RosterRow``, the ``ExportOptions``) and return rows of cells; the CSV writer, the
roster's reading and the pass over the class are the layers' above.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from ..results import NOT_GRADED, StudentResult, format_points


class RosterRow(Protocol):
    """What an LMS's export reads of a learner's roster row (``intake.roster.RosterEntry``,
    whose layer reads the LMSs' column names from here: the row's type is not named)."""

    @property
    def student(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def section(self) -> str: ...
    @property
    def sis_user_id(self) -> str: ...
    @property
    def sis_login_id(self) -> str: ...
    @property
    def lms_id(self) -> str: ...


@dataclass(frozen=True)
class Download:
    """How an LMS's "download all submissions" names each file.

    ``pattern`` matches a whole file name and has the groups ``original`` (the file name
    the learner uploaded) and either ``name`` (the learner's name as the LMS writes it,
    with ``user``: the LMS's user id, when the name carries one) or ``anon`` (an
    anonymised learner's id).
    """

    pattern: re.Pattern[str]
    shown: str  # the pattern as an instructor reads it, in messages


@dataclass(frozen=True)
class ExportOption:
    """An option of an export format, declared by the format (``--NAME`` on ``graders
    export``): ``choices`` are its values; unset, the format picks its default."""

    name: str
    choices: tuple[str, ...]
    help: str


@dataclass(frozen=True)
class ExportOptions:
    """What an export needs beyond the results: the assignment's column, its points, whether
    a roster names the learners, and the format's options as given."""

    column: str  # the assignment's column header
    points_possible: float
    with_roster: bool = False
    chosen: Mapping[str, str] = field(default_factory=dict)  # option name -> value given


@dataclass(frozen=True)
class Line:
    """What an export makes of one learner: their row, or why they are left out."""

    row: list[object] | None
    left_out: str | None = None  # why there is no row
    blank: bool = False  # written without a score
    by_name: bool = False  # written without an id: the LMS can match them by name only


@dataclass(frozen=True)
class LmsExport:
    """An LMS's grade import file: CSV rows above the learners', then a line per learner
    (``entry``: their roster entry, or one of only their id without a roster)."""

    about: str  # one line, for the command line's list of formats
    head: Callable[[ExportOptions], list[list[object]]]
    line: Callable[[StudentResult, RosterRow, ExportOptions], Line]
    options: tuple[ExportOption, ...] = ()


@dataclass(frozen=True)
class Lms:
    """What graders knows of one LMS."""

    name: str  # how graders names it: --format, the registry's key
    title: str  # how people name it, in messages
    # The roster's columns this LMS shows under a name of its own ("lms_id": "ID"), in the
    # order its files show them.
    roster_names: Mapping[str, str] = field(default_factory=dict)
    download: Download | None = None
    export: LmsExport | None = None


def lms_score(s: StudentResult) -> str | None:
    """The points an LMS gets: the score (0 when missing or past the cutoff); None when the
    submission could not be graded."""
    if s.status in NOT_GRADED:
        return None
    return format_points(s.score)
