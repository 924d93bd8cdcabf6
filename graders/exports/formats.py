"""Every output a class can be written to, one registry: each format's name, options, writer.

    results     results.json   the results document (every output is made from it)
    grades      grades.csv     the instructor's table: a column of points per question,
                               late factor, total, extensions and overrides
    junit       junit.xml      a test suite per learner, a test case per question
    gradescope  gradescope/    a Gradescope results.json per learner
    canvas, moodle ...         each registered LMS's grade import (``lms.registry``,
                               written by ``exports.lms``)
    csv         <a>-csv.csv    one grade per learner with the roster's ids, for a spreadsheet
                               or an LMS graders has no module for

Two plain CSVs, two names, because they answer two questions: ``grades`` is what each
learner scored on each question (one column per question, graders' ids only), for the
instructor; ``csv`` is the one grade an LMS or a registrar takes, with every id the roster
has for the learner and whether they are on it. Their columns are what tests and people's
scripts read, so neither is folded into the other.

A format's writer makes, from the class's results and an ``ExportContext``, either one
file (``results.ClassFile``: its head, a piece per learner, its tail) or a file per learner
(``LearnerFiles``). Either is written as the class is read, a learner at a time: no
output is ever held whole. ``autograde`` and ``regrade`` write the formats marked
``in_outputs`` into the outputs folder, all in one pass (``results_files.write_outputs``);
``graders export`` writes any one-file format, with the options it declares.

An option is declared by its format (``ExportOption``: ``--NAME`` on ``graders export``,
its choices checked before any work); its type is ``lms.contract``'s, for every format,
since an LMS's module declares its export's options and ``lms/`` sits below ``exports/``.

Writers are named by module (``"graders.exports.junit:junit_file"``) and imported when a
file is written, so listing the formats (``graders --help``) loads none of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import cast

from ..errors import UsageError
from ..lms.contract import ExportOption
from ..lms.registry import registered
from ..results import ClassFile, ClassResults
from .contract import ExportContext, LearnerFiles, Writer
from .lms import lms_writer


@dataclass(frozen=True)
class ExportFormat:
    """One output a class can be written to."""

    name: str  # --format NAME
    about: str  # one line, for the command line's list
    suffix: str  # the file's: ".csv"; "/" for a folder of a file per learner
    writer: str | Writer  # "module:function", imported when a file is written
    options: tuple[ExportOption, ...] = ()  # declared by the format: --NAME on graders export
    in_outputs: str | None = None  # its name in autograde's outputs folder, when written there
    title: str = ""  # how people name it, in messages (default: its name)

    @property
    def one_file(self) -> bool:
        return self.suffix != "/"

    def make(self, results: ClassResults, context: ExportContext) -> ClassFile | LearnerFiles:
        """The format's file (or files) of ``results``: a new one at each call."""
        writer = self.writer
        if isinstance(writer, str):
            module, name = writer.split(":")
            writer = getattr(import_module(module), name)
        return writer(results, context)

    def one_file_of(self, results: ClassResults, context: ExportContext) -> ClassFile:
        """The format's one file of ``results``; ``UsageError`` for a format of a file per
        learner (it is written into an outputs folder, by autograde)."""
        if not self.one_file:
            raise UsageError(
                f"{self.name} writes a file per learner, into autograde's outputs folder"
            )
        return cast("ClassFile", self.make(results, context))

    def checked(self, chosen: Mapping[str, str | None]) -> dict[str, str]:
        """The options given that this format declares, each checked against its choices;
        ``UsageError`` for a wrong one, before any work."""
        given = {name: value for name, value in chosen.items() if value is not None}
        declared = {option.name: option for option in self.options}
        for name, value in given.items():
            option = declared.get(name)
            if option is None:
                raise UsageError(f"--{name} is not an option of the {self.name} format")
            if value not in option.choices:
                raise UsageError(
                    f"unknown {self.title or self.name} {name} {value!r}: "
                    f"one of {', '.join(option.choices)}"
                )
        return given


BUILTIN: tuple[ExportFormat, ...] = (
    ExportFormat(
        "results",
        "the results document (JSON), every other output's source",
        ".json",
        "graders.exports.results_files:results_json",
        in_outputs="results.json",
    ),
    ExportFormat(
        "grades",
        "the instructor's table, points per question (grades.csv)",
        ".csv",
        "graders.exports.results_files:grades_file",
        in_outputs="grades.csv",
    ),
    ExportFormat(
        "junit",
        "JUnit XML, a test case per question",
        ".xml",
        "graders.exports.junit:junit_file",
        in_outputs="junit.xml",
    ),
    ExportFormat(
        "gradescope",
        "a Gradescope results.json per learner",
        "/",
        "graders.exports.results_files:gradescope_files",
        in_outputs="gradescope/",
    ),
)
# After the LMSs' imports: one grade per learner, with the roster's ids.
PLAIN = ExportFormat(
    "csv",
    "one grade per learner with the roster's ids, for any other system",
    ".csv",
    "graders.exports.lms:plain_file",
)
REGISTERED: dict[str, ExportFormat] = {}


def register(fmt: ExportFormat) -> ExportFormat:
    """Make ``fmt`` a format (after the built-in ones; one of a built-in name replaces it)."""
    REGISTERED[fmt.name] = fmt
    return fmt


def unregister(name: str) -> None:
    """Forget the format ``name`` registered (a test's toy format, once the test is done)."""
    REGISTERED.pop(name, None)


def formats() -> tuple[ExportFormat, ...]:
    """Every format: the class outputs, each LMS's import, the plain CSV, then the others as
    registered."""
    found = {f.name: f for f in (*BUILTIN, *_lms_formats(), PLAIN)}
    found.update(REGISTERED)
    return tuple(found.values())


def get_format(name: str) -> ExportFormat:
    """The format ``name``; ``UsageError`` naming the formats when there is none."""
    found = {f.name: f for f in formats()}
    if name not in found:
        raise UsageError(f"unknown export format {name!r}: one of {', '.join(found)}")
    return found[name]


def outputs() -> tuple[ExportFormat, ...]:
    """The formats autograde and regrade write into the outputs folder, in order."""
    return tuple(f for f in formats() if f.in_outputs)


def output_names() -> list[str]:
    """The outputs folder's files and folders, in order: results.json, ..., gradescope/."""
    return [f.in_outputs for f in outputs() if f.in_outputs]


def outputs_listed() -> str:
    """The outputs folder's files, for the command line: "results.json, ... and gradescope/"."""
    names = output_names()
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


def all_options() -> dict[str, tuple[ExportOption, list[ExportFormat]]]:
    """Every option a format declares, by name, with the formats that declare it."""
    found: dict[str, tuple[ExportOption, list[ExportFormat]]] = {}
    for fmt in formats():
        for option in fmt.options:
            found.setdefault(option.name, (option, []))[1].append(fmt)
    return found


def _lms_formats() -> list[ExportFormat]:
    return [
        ExportFormat(
            lms.name,
            lms.export.about,
            ".csv",
            lms_writer(lms.export),
            lms.export.options,
            title=lms.title,
        )
        for lms in registered()
        if lms.export is not None
    ]
