"""What a code exercise's sandbox outcome means for the learner, before any check is judged.

The sandbox reports how the child ended (``ok``, ``timeout``, ``error``, ``integrity``);
the checker inside it reports what became of the learner's source (``ok``, ``invalid``,
``error``, ``integrity``). ``judge_outcome`` folds both into one status and one message, or
hands back the observations to judge. Messages speak about the learner's code only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...checker.verdicts import Malformed, explain_raised, sentence
from ...i18n import N_
from ...results import Status
from ...said import Told, capitalized, joined, say
from .sandbox_words import said_by_sandbox

_SANDBOX_STATUS = {"timeout": Status.TIMEOUT, "error": Status.ERROR, "integrity": Status.INTEGRITY}
# What graded code may not use, by kind of refusal (``learner.REFUSED_KINDS``): said to the
# learner without a word of suspicion, with the line it was on.
NOT_AVAILABLE = {
    "import": N_(
        "the module `{name}` is not available in graded code; if your solution needs it, "
        "your instructor can allow it for the course (code_imports)"
    ),
    "name": N_("`{name}` is not available in graded code"),
    "process": N_("graded code may not start another process (`{name}`)"),
    "network": N_("graded code may not use the network (`{name}`)"),
    "pickle": N_(
        "graded code may not load pickled objects (`{name}`); "
        "load tensors with `torch.load(..., weights_only=True)`"
    ),
    "descriptor": N_(
        "graded code may not open a file by its descriptor number (`{name}`); open it by its path"
    ),
    "thread": N_(
        "your code left a thread running after it returned; join it first "
        "(for example `with ThreadPoolExecutor() as pool:`)"
    ),
    "annotation": N_(
        "a type given as text (`{name}`) must be a type written in your code's annotations, "
        "not text made while it runs: write the annotation itself, or a class's name"
    ),
}
MAX_SAID_REFUSALS = 3
FORGED = N_(
    "What came back from running your code was not written by the grader; "
    "this exercise scores zero."
)


@dataclass(frozen=True)
class Judged:
    """Observations to judge, or the status and message every check of the exercise gets."""

    status: Status
    message: Told = ""
    observations: Any = None


def judge_outcome(outcome: Any, entry: str, signature: str) -> Judged:
    """Fold the sandbox outcome and the checker's own status into one ``Judged``."""
    if outcome.status != "ok":
        status = _SANDBOX_STATUS.get(outcome.status, Status.ERROR)
        return Judged(status, _sandbox_message(outcome))
    result = outcome.result
    if not isinstance(result, dict):
        return Judged(Status.INTEGRITY, say(FORGED))
    try:
        return _checker_status(result, entry, signature)
    except Malformed:
        return Judged(Status.INTEGRITY, say(FORGED))


def _sandbox_message(outcome: Any) -> Told:
    written = (outcome.message or "").strip()
    if outcome.words is not None:  # the sandbox's sentence, said again in each language
        message = said_by_sandbox(outcome.words)
    elif written:
        message = written  # the child's own text, or a runner's: as it was written
    else:
        message = say("running your code ended with status '{status}'", status=outcome.status)
    if outcome.status == "integrity":
        return say(
            "Your code interfered with grading: {reason}. This exercise scores zero.",
            reason=message,
        )
    return capitalized(message)


def _checker_status(result: dict[str, Any], entry: str, signature: str) -> Judged:
    status = result.get("status")
    if status == "ok":
        return Judged(Status.CORRECT, observations=result.get("observations"))
    if status == "invalid":
        return Judged(Status.INVALID, _invalid_message(result, entry, signature))
    if status == "error":
        if "refused" in result:
            return Judged(Status.ERROR, _refused_message(result["refused"]))
        if "unmeasurable" in result:
            return Judged(
                Status.ERROR,
                say(
                    "The grader could not measure what your function did ({reason}).",
                    reason=str(result["unmeasurable"])[:200],
                ),
            )
        return Judged(
            Status.ERROR, sentence(explain_raised(result.get("raised"), "Running your code"))
        )
    if status == "integrity":
        reasons = result.get("reasons")
        if not isinstance(reasons, list) or not all(isinstance(r, str) for r in reasons):
            raise Malformed("reasons")
        return Judged(
            Status.INTEGRITY,
            say(
                "Your code interfered with grading ({reasons}). This exercise scores zero.",
                reasons="; ".join(reasons),
            ),
        )
    raise Malformed("status")


def _refused_message(records: Any) -> Told:
    if not isinstance(records, list) or not records:
        raise Malformed("refused")
    said = []
    for record in records[:MAX_SAID_REFUSALS]:
        if not isinstance(record, dict) or record.get("kind") not in NOT_AVAILABLE:
            raise Malformed("refused")
        what = say(NOT_AVAILABLE[record["kind"]], name=str(record.get("name", ""))[:200])
        line = record.get("line")
        said.append(
            say("Line {line}: {what}.", line=line, what=what)
            if type(line) is int
            else say("{what}.", what=capitalized(what))
        )
    return joined(said, " ")


def _invalid_message(result: dict[str, Any], entry: str, signature: str) -> Told:
    if "syntax" in result:
        syntax = result["syntax"]
        if not isinstance(syntax, dict):
            raise Malformed("syntax")
        line = syntax.get("line")
        error = str(syntax.get("message", ""))[:200]
        if type(line) is int:
            return say(
                "Your code is not valid Python: {error} (line {line}).", error=error, line=line
            )
        return say("Your code is not valid Python: {error}.", error=error)
    if "missing" in result:
        return say(
            "Define a function `{signature}`: your code does not define `{entry}`.",
            signature=signature,
            entry=entry,
        )
    found = str(result.get("not_callable", "value"))[:80]
    return say(
        "`{entry}` must be a function `{signature}`, not a {found}.",
        entry=entry,
        signature=signature,
        found=found,
    )
