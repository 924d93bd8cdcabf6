"""The sandbox's sentences about how a learner's code ended, in the learner's language.

The sandbox imports nothing of graders (it sits under every layer), so it words its
verdicts in English (``sandbox.verdict``). Each of its sentences is listed here as a
message of graders' catalogue, with its values as fields: ``said_by_sandbox`` reads a
verdict's message back into them and says it again, so it reaches the feedback in every
language of the course. A sentence not listed (a new one in the sandbox) stays as the
sandbox wrote it; a test keeps this list and ``sandbox.verdict`` in step.
"""

from __future__ import annotations

import re
import string
from functools import cache

from ...i18n import N_
from ...said import say

SENTENCES = (
    N_("the sandbox could not run the job: {reason}"),
    N_("the code did not finish within the time limit of {limit} s"),
    N_("the code used more than its {limit} s of CPU time and was stopped"),
    N_("the code wrote more than {limit} MiB to {stream} and was stopped"),
    N_("the code exceeded the memory limit ({reason})"),
    N_("the code was killed by {signal} ({hint})"),
    N_("the code was killed by {signal}"),
    N_("the channel to the grader was closed or replaced by the code"),
    N_("the sandbox could not be set up for this job"),
    N_("the code ended the process with exit status {code} (os._exit())"),
    N_("the code ended the process (os._exit() or sys.exit()) before the task returned a result"),
    N_("what came back is not what the grader's code sends: {reason}"),
    # What a signal's number means, said inside "killed by ...".
    N_("a segmentation fault"),
    N_("a bus error"),
    N_("an arithmetic fault"),
    N_("an illegal instruction"),
    N_("an abort, often native code running out of memory"),
    N_("possibly for using too much memory"),
    N_("it exceeded the CPU time limit"),
    N_("it exceeded the file size limit"),
)


def said_by_sandbox(message: str) -> str:
    """``message`` said again as the catalogue's sentence it is (its fields read back, and
    said again themselves when they are sentences too); else ``message`` as it is."""
    for sentence, pattern in _patterns():
        found = pattern.fullmatch(message)
        if found:
            fields = {name: said_by_sandbox(value) for name, value in found.groupdict().items()}
            return say(sentence, **fields)
    return message


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((s, _pattern(s)) for s in SENTENCES)


def _pattern(sentence: str) -> re.Pattern[str]:
    parts = []
    for literal, field, _spec, _conversion in string.Formatter().parse(sentence):
        parts.append(re.escape(literal))
        if field:
            parts.append(f"(?P<{field}>.+?)")
    return re.compile("".join(parts), re.S)
