"""Whether a value that was read answers a question at all: a bare word that is no value,
and a yes/no where the answer is what happens, are not answers (``invalid``), never wrong.

The parser reads any bare name (``RuntimeError``, ``MulBackward0``) as a ``Name``, and
the comparison decides what it names from the kind of the truth. A name a learner writes
instead of a value (``maybe``, ``idk``, ``same``, ``x``) names nothing: a teaching
assistant does not mark it wrong, but asks for an answer. So ``not_an_answer`` says why a
read value is no answer, before it is marked wrong; it looks at every element of a tuple
or a list (``(True, maybe)``). What a bare name can be, for any question:

- an exception class: a builtin one in any case, or a name ending in Error, Exception or
  Warning (``RuntimeError``, ``runtimeerror``, ``OutOfMemoryError``): every question's
  code may raise;
- a class name as Python writes one, starting with a capital (``MulBackward0``,
  ``CopySlices``): a grad_fn, or torch's own class; the comparison judges it. A single
  capital (``T``, ``F``) is a letter, not a class: no answer;
- a grad_fn's name in any case (``sigmoidbackward0``): its case tells no two nodes apart;
- a dtype's name, in any case (``float32``, ``long``, ``Int64``);
- for a question whose answer is a string, any name: it is read as the string's text;
  so are words an element of a tuple or a list is written in (``[pre B, hook A]``, read
  by ``parse``), which answer nothing else.

The one item of a one-item list or tuple may be written without its brackets (the
comparison reads ``tensor([1.])`` as ``[tensor([1.])]``): such an answer is judged against
that item.

A lowercase word that is none of these is no answer; nor is the word for an error itself
(``error``, ``Error``, ``exception``): it says something is raised, not which class. A name
one or two letters away from an exception class (``RuntimeErorr``) is a typo of it, not
another class: it is no answer either, and the reason says which class it may mean. The
rule is the same for every question (but a string's), so whether an answer is read tells
nothing about the key.

Where the question asks what happens when a statement runs (``outcome``: a question's
``run``, whose answer is an exception class or ``no error``), a yes/no (``True``, ``no``,
``是``) is no answer: ``no`` might mean "no error" or "no, not that", ``yes`` names no
exception, and reading one but not the other would reward a guess. The reason asks for the
exception class or ``no error``. It is the question's kind that says so, not its key (a
value question whose expression raises takes ``False`` as a wrong value).
"""

from __future__ import annotations

import difflib
import re

from ..i18n import N_
from ..said import Told, say
from .render import DTYPE_ALIASES, DTYPES
from .spelling import BUILTIN_EXCEPTIONS, is_exception_name, is_generic
from .values import Name, Scalar, Sequence, Value

NOT_A_VALUE = N_(
    "`{word}` is a bare word, not a value: write the value itself (such as True, 2 or "
    "tensor(2.)), an exception class (such as RuntimeError) or no error"
)
TYPO = N_("`{word}` names no exception class: if you meant `{name}`, write it so")
YES_NO = N_(
    "a yes or no (True, False) is not an answer here: the question asks what happens when "
    "the code runs, so write the exception class it raises (such as RuntimeError) or no error"
)
# A capital and at least one more character: a single capital (T, F) is a letter standing
# for something (True? a tensor?), not a class of torch's, so it is no answer, not a wrong one.
_CLASS_NAME = re.compile(r"[A-Z]\w+")
_GRAD_FN = re.compile(r"\w+backward\d*", re.IGNORECASE)
_EXCEPTION_NAMES = BUILTIN_EXCEPTIONS  # by case-folded name: a typo in any case


def not_an_answer(answer: Value, truth: Value, *, outcome: bool = False) -> Told | None:
    """Why ``answer`` (as read) answers no question whose truth is ``truth`` (asking what
    happens, if ``outcome``); None when it is an answer (right or wrong: the comparison
    says which)."""
    if isinstance(truth, Sequence) and len(truth.items) == 1 and not isinstance(answer, Sequence):
        truth = truth.items[0]  # the one item, written without its brackets, is read as it
    if isinstance(answer, Sequence):
        items = truth.items if isinstance(truth, Sequence) and truth.items else (truth,)
        for i, item in enumerate(answer.items):
            why = not_an_answer(item, items[min(i, len(items) - 1)])
            if why is not None:
                return why
        return None
    if isinstance(answer, Name):
        return _bare_name(answer.ident, truth)
    if outcome and isinstance(answer, Scalar) and isinstance(answer.value, bool):
        return say(YES_NO)
    return None


def _bare_name(word: str, truth: Value) -> Told | None:
    if isinstance(truth, Scalar) and isinstance(truth.value, str):
        return None  # a string's text, written without its quotes
    if not word.isidentifier():
        return say(NOT_A_VALUE, word=word)  # words read as text (pre B): only a string's
    folded = word.casefold()
    if is_generic(word):
        return say(NOT_A_VALUE, word=word)  # "error": something is raised, but what?
    if is_exception_name(word) or folded in DTYPES or folded in DTYPE_ALIASES:
        return None
    if _GRAD_FN.fullmatch(word):
        return None  # a grad_fn's name in another case (sigmoidbackward0): compared as one
    close = difflib.get_close_matches(word.casefold(), _EXCEPTION_NAMES, n=1, cutoff=0.85)
    if close:
        return say(TYPO, word=word, name=_EXCEPTION_NAMES[close[0]])
    if _CLASS_NAME.fullmatch(word):
        return None
    return say(NOT_A_VALUE, word=word)
