"""Child tasks and a corpus of hostile submissions for the sandbox tests.

Each file in ``corpus/`` is learner code, run by ``exec_source.task`` the way a harness
runs a submission. Its name says the expected outcome, ``<status>__<what>.py``, and its
first line may say what the message must contain: ``# expect: <text>``. Values a case
needs from the test (a port, a path) arrive in the ``args`` dict.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).parent / "corpus"
TASK = "sandbox_tasks.exec_source:task"
TASK_PATH = str(Path(__file__).resolve().parent.parent)  # where `sandbox_tasks` is importable from
EXPECT = "# expect: "


@dataclass(frozen=True)
class Case:
    """One corpus file."""

    name: str
    status: str
    expect: str
    source: str


def load_corpus() -> list[Case]:
    """Every case of ``corpus/``, sorted by name."""
    cases = []
    for path in sorted(CORPUS.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        first = source.splitlines()[0] if source else ""
        status = path.stem.split("__")[0]
        cases.append(
            Case(
                path.stem, status, first[len(EXPECT) :] if first.startswith(EXPECT) else "", source
            )
        )
    return cases


def source_of(name: str) -> str:
    """The source of corpus file ``name`` (without ``.py``)."""
    return (CORPUS / f"{name}.py").read_text(encoding="utf-8")
