"""The sandbox's sentences about how a learner's code ended, in the learner's language.

The sandbox imports nothing of graders (it sits under every layer), so it words its
verdicts in English and hands over each one's sentence and values as data
(``sandbox.words.Words``). Each of its sentences is listed here as a message of graders'
catalogue: ``said_by_sandbox`` says the sentence again with its values, so it reaches
the feedback in every language of the course. Nothing is read back from the English: a
child's own text (a task's error) carries no words and is never taken for a sentence of
the sandbox's. A sentence not listed (a new one in the sandbox) stays as the sandbox
wrote it; a test keeps this list and the sandbox's sentences in step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...i18n import N_
from ...said import Told, say

if TYPE_CHECKING:
    from ...sandbox.words import Words

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
    N_(
        "the code left a thread running after it returned; join it first "
        "(for example `with ThreadPoolExecutor() as pool:`)"
    ),
    # What a signal's number means, said inside "killed by ...".
    N_("a segmentation fault"),
    N_("a bus error"),
    N_("an arithmetic fault"),
    N_("an illegal instruction"),
    N_("an abort, often native code running out of memory"),
    N_("possibly for using too much memory"),
    N_("it exceeded the CPU time limit"),
    N_("it exceeded the file size limit"),
    # What the code wrote on the grader's channel instead of a result.
    N_("the result contains {token}, which is not valid JSON"),
    N_("the result is nested more than {limit} levels deep"),
    N_("the result is not valid JSON"),
    N_("the code wrote to the grader's channel"),
    N_("the result is a {type}, not an object"),
    N_("the result is larger than the limit of {limit} bytes"),
)
_KNOWN = frozenset(SENTENCES)


def said_by_sandbox(words: Words) -> Told:
    """``words`` said as the catalogue's sentence they are (a field that is a sentence too
    is said with it); the sandbox's English when the catalogue does not know the sentence."""
    if words.sentence not in _KNOWN:
        return str(words)
    fields = {
        name: value if isinstance(value, str) else said_by_sandbox(value)
        for name, value in words.fields.items()
    }
    return say(words.sentence, **fields)
