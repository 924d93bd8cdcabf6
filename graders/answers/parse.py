"""The safe answer parser: a learner's literal becomes a ``Value``; nothing is ever run.

``parse_answer`` reads the text with ``ast.parse(mode="eval")`` and walks an allow-list of
node kinds; there is no eval, exec or compile of code. Accepted forms:

- Python literals: numbers, ``True``/``False``/``None``, strings, tuples and lists of them;
  ``nan``, ``inf`` and ``-inf`` are floats, as torch and Python print them.
- ``tensor(...)`` / ``torch.tensor(...)`` as torch prints it: nested lists of numbers plus
  the keywords ``requires_grad=True|False``, ``grad_fn=<MulBackward0>``,
  ``dtype=torch.float64`` and ``size=(0, 3)`` (torch's form of an empty tensor).
- ``torch.Size([3, 4])`` (``Size([3, 4])`` too), a dtype ``torch.float32`` (aliases such
  as ``torch.long`` too).
- A bare name (``RuntimeError``, ``MulBackward0``), ``<MulBackward0>`` or
  ``<MulBackward0 object at 0x7f...>``: compare decides what the name means.
- ``no error`` in the words of any language graders knows (``spelling.no_error_phrases``:
  ``no exception``, ``没有报错``, ``不报错`` ...; any case, an optional final period), the whole
  answer or an element of a tuple or a list (``(True, no error)``).
- What a person writes that Python spells otherwise (``spelling``): a traceback's last
  line ``RuntimeError: message``, ``Runtime Error``, ``runtimeerror``, ``true``,
  ``false``, ``none``; ``read_answer`` returns a note saying how Python writes it.
- Words (``words``): ``yes``, ``是``, ``two``, ``thirty-five``, ``二十``, ``twice``, the
  whole answer or an element of a tuple or a list, read by the same ``words.word``.
- An element of a tuple or a list written in words Python does not read as one value
  (``phrases``): ``[pre B, hook A]``, ``[tensor, post-accumulate]``, ``(True, raises
  RuntimeError)``: each read as the whole answer would be, else as its text (a bare name).
  Tried only when Python's own reading fails, and only where commas separate elements.
- A value with a label or a note: ``grad_fn=<SelectBackward0>`` (the grad_fn), and a note
  in parentheses after any value read (``5 (2 + 3)``, ``False (different id())``): the
  value is graded, the note is not. A parenthesised group is a note only when a value
  comes before it and the whole answer is not Python's (``(1, 2)`` is a tuple,
  ``tensor (2.)`` a tensor; a name right before the ``(``, ``f(x)``, is a call).

A read value may still answer nothing: a bare word (``maybe``) or a yes/no where the
question asks what happens; ``answerable`` says so, where the key is known.

Before any of this, what a keyboard typed for ASCII punctuation (``keyboard``: full-width
forms, curly and corner quotes, ``、``, ``。``) is read as the ASCII it stands for, with a
note saying what was read; text inside strings is kept as typed. A character that is still
not ASCII outside strings is named in the reason the answer cannot be read, with what to
type instead.

A tensor's ``dtype`` is set only when written. Its kind (bool, int or float) is read the
way torch infers it, from the Python types kept in ``values``: any float -> float32, else
any int -> int64, all bools -> bool, empty -> float32 (``literals.literal_dtype``). So
``tensor(2)`` and ``tensor(2.)`` stay different. With an explicit dtype the values are
converted as torch would (``tensor([1, 2], dtype=torch.float64)`` holds 1.0 and 2.0).

``render_answer`` (from ``literals``, re-exported here) is the inverse: the literal a
learner would write for a truth.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache

from .. import syntax
from ..i18n import N_, current_language
from ..i18n.language import Language
from ..i18n.registry import languages
from ..said import Told, say
from .judging import cap
from .keyboard import Unread, normalised, unread_character
from .literal_reader import MAX_DEPTH, LiteralReader
from .phrases import elements_read
from .refusals import ACCEPTED_FORMS, AnswerSyntaxError
from .render import render_answer
from .spelling import exception_answer, is_no_error, no_error_phrases, raised_without_class
from .values import Name, NoError, Opaque, Scalar, Value
from .words import in_words, is_word, number_in_words

__all__ = [
    "AnswerSyntaxError",
    "parse_answer",
    "read_answer",
    "ReadAnswer",
    "render_answer",
    "is_writable",
    "ACCEPTED_FORMS",
    "no_error_phrases",
]

MAX_CHARS = 10_000

# torch prints grad_fns in angle brackets; strings are matched first so their text is kept.
_ANGLE_OR_STRING = re.compile(
    r"""(?P<str>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
    r"""|<\s*(?:[A-Za-z_][\w]*\.)*(?P<name>[A-Za-z_]\w*)(?:\s+object\s+at\s+0x[0-9a-fA-F]+)?\s*>"""
)


@dataclass(frozen=True)
class ReadAnswer:
    """An answer's value, and notes for the learner on how Python writes what they wrote."""

    value: Value
    notes: tuple[Told, ...] = ()


def parse_answer(text: str) -> Value:
    """Parse a learner's answer literal into a ``Value`` (see the module docstring)."""
    return read_answer(text).value


def read_answer(text: str) -> ReadAnswer:
    """The value of an answer literal, with the notes its spelling deserves (in the
    language spoken: ``i18n.speaking``)."""
    return _read_answer(text, current_language(), languages())


@lru_cache(maxsize=4096)
def _read_answer(text: str, language: str, known: tuple[Language, ...]) -> ReadAnswer:
    # Remembered (values are frozen): a class writes the same few answers many times; per
    # language, as the notes are words, and per set of languages known (``known``: their
    # keyboards and words are read), so one registered later is read from then on. An
    # answer that cannot be read raises each time, as exceptions are not remembered.
    if len(text) > MAX_CHARS:
        raise AnswerSyntaxError(say("it is longer than {limit} characters", limit=MAX_CHARS))
    written = text.strip().replace("\u2212", "-")  # a typographic minus, pasted from a page
    source = _without_full_stop(normalised(written))
    if not source:
        raise AnswerSyntaxError(say("it is empty"))
    labelled = _GRAD_FN_LABEL.fullmatch(source)
    if labelled:  # grad_fn=<SelectBackward0>, as torch prints it inside a tensor
        read = _read_answer(labelled["value"], language, known)
        said = say(GRAD_FN_LABEL, answer=cap(labelled["value"]))
        return ReadAnswer(read.value, (said, *read.notes))
    try:
        return _read_whole(written, source)
    except AnswerSyntaxError as exc:
        head = _before_note(source, written.rstrip("。. ").endswith("）"))
        if head is None:
            raise
        unnoted = exc
    try:
        read = _read_answer(head, language, known)
    except AnswerSyntaxError:
        raise unnoted from None  # the note was not what kept it from being read
    return ReadAnswer(read.value, (*read.notes, say(NOTE_AFTER, answer=cap(head))))


def _read_word(text: str) -> bool:
    """Whether ``text`` is a word the literal reader reads (``是``, ``没有报错``)."""
    return is_word(text) or is_no_error(text)


def _read_whole(written: str, source: str) -> ReadAnswer:
    """``source`` (``written`` with a keyboard's punctuation in ASCII) read as one answer."""
    if is_no_error(source):
        return ReadAnswer(NoError())
    respelled = exception_answer(source)
    if respelled is not None:
        return ReadAnswer(Name(respelled.text), (respelled.note,))
    if raised_without_class(source):
        raise AnswerSyntaxError(say(NO_CLASS, answer=cap(source)))
    worded = in_words(source)
    if worded is not None:
        return ReadAnswer(Scalar(worded.value), (worded.note,))
    if number_in_words(source):  # "one hundred", "thirty-zero", "一百"
        raise AnswerSyntaxError(say(NUMBER_WORDS))
    unread = unread_character(written, _read_word)
    if unread is not None and not _phrases_read(source):
        raise AnswerSyntaxError(unread_reason(unread))
    value, notes = _literal(_one_word_phrases(_ANGLE_OR_STRING.sub(_angle_or_string, source)))
    typed = () if source == _without_full_stop(written) else (say(READ_AS, answer=cap(source)),)
    return ReadAnswer(value, (*typed, *notes))


def _phrases_read(source: str) -> bool:
    """Whether every character Python does not read is in an element written as a phrase
    that is read (``(是, 抛出 RuntimeError)``): the literal reader then reads them."""
    elements = elements_read(source)
    return elements is not None and unread_character(elements.source, _read_word) is None


def _literal(source: str) -> tuple[Value, tuple[Told, ...]]:
    """``source`` read as Python's literal; failing that, with the phrases that are its
    elements read as words (``phrases``: ``[pre B, hook A]``). When neither reads it, the
    reason is Python's reading's, as it would be without phrases."""
    reader = LiteralReader(source)
    try:
        return reader.value(_parse(reader.source), 0), tuple(reader.notes)
    except AnswerSyntaxError as unread:
        elements = elements_read(source)
        if elements is None:
            raise
        phrased = LiteralReader(elements.source, elements.read)
        try:
            return phrased.value(_parse(phrased.source), 0), tuple(phrased.notes)
        except AnswerSyntaxError:
            raise unread from None


def _angle_or_string(match: re.Match[str]) -> str:
    return match["str"] or match["name"]


@lru_cache(maxsize=4)
def _phrase_or_string(known: tuple[Language, ...]) -> re.Pattern[str]:
    """A string, or a "no error" of a language ``known`` written in words apart that is an
    element of a tuple or a list (True, no error)."""
    phrases = (p for lang in known for p in lang.words.no_error)
    spaced = sorted((p for p in phrases if " " in p), key=len, reverse=True)
    return re.compile(
        r"""(?P<str>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
        r"|(?<=[(\[,])(?P<space>\s*)(?P<phrase>"
        + "|".join(r"\s+".join(map(re.escape, p.split())) for p in spaced)
        + r")(?=\s*[,)\]])",
        re.IGNORECASE,
    )


def _one_word_phrases(source: str) -> str:
    """``source`` with each "no error" that is an element of a tuple or a list joined into
    one name, ``no_error`` (Python reads no phrase; the literal reader reads that name as
    no error, as the whole answer is read), strings kept as they are."""
    return _phrase_or_string(languages()).sub(
        lambda m: m["str"] or m["space"] + "_".join(m["phrase"].split()), source
    )


READ_AS = N_("Read as `{answer}`, in the ASCII characters Python reads.")
NUMBER_WORDS = N_(
    "numbers in words are read from zero to ninety-nine (零 to 九十九), as thirty-five or "
    "三十五: write this one in digits"
)
NO_CLASS = N_(
    "`{answer}` says something is raised, but not what: write the exception class (such as "
    "RuntimeError)"
)
NOTE_AFTER = N_("Read as `{answer}`: the note in parentheses after it is not graded.")
GRAD_FN_LABEL = N_("Read as `{answer}`: the grad_fn is graded, not the `grad_fn=` before it.")
# "grad_fn=<SelectBackward0>", "y.grad_fn: <MulBackward0>": the grad_fn after its label.
_GRAD_FN_LABEL = re.compile(r"(?:[A-Za-z_][\w.]*\.)?grad_fn\s*[=:]\s*(?P<value>\S.*)", re.DOTALL)
# The calls the grammar reads: what comes before their parentheses is no value with a note.
_CALLS = frozenset({"tensor", "torch.tensor", "torch.Size", "Size"})


def _before_note(source: str, full_width: bool = False) -> str | None:
    """What comes before a note in parentheses that ends ``source`` (``5 (2 + 3)``,
    ``False (different id())``), or None when it does not end in one.

    A parenthesised group is a note only when a value comes before it and the whole answer
    is not read as Python: alone, ``(1, 2)`` is a tuple, and ``tensor(2.)`` a tensor. A
    name right before the ``(`` makes it a call (``f(x)``), not a note, unless the learner
    typed full-width parentheses (``full_width``: ``False（不是同一个对象）``), as a Chinese
    keyboard does around a note and Python never does around a call's arguments."""
    if not source.endswith(")"):
        return None
    depth = 0
    for i in range(len(source) - 1, -1, -1):
        depth += (source[i] == ")") - (source[i] == "(")
        if depth == 0:
            head = source[:i]
            break
    else:
        return None
    named = head[-1:].isascii() and (head[-1:].isalpha() or head.endswith("_"))
    if not head.strip() or (named and not full_width) or head.strip() in _CALLS:
        return None
    return head.strip()


TYPE_INSTEAD = N_(
    "it has `{char}` ({code}) at character {position}, which Python does not read: type "
    "`{instead}` instead"
)
TYPE_ASCII = N_(
    "it has `{char}` ({code}) at character {position}, which Python does not read: type the "
    "answer in ASCII characters, with the keyboard set to English"
)


UNREAD_WORD = N_(
    "`{word}` at character {position} is not one of the words read as a value (yes/no, "
    "是/否, 对/错, numbers such as two or 二): write the value itself"
)


def unread_reason(unread: Unread) -> Told:
    """Why an answer with ``unread`` cannot be read, and what to type instead: a word (in
    the learner's own script) is named as a word, not as a character to retype."""
    if unread.word and not unread.instead:
        return say(UNREAD_WORD, word=unread.word, position=unread.position)
    return say(
        TYPE_INSTEAD if unread.instead else TYPE_ASCII,
        char=unread.char,
        code=unread.code,
        position=unread.position,
        instead=unread.instead,
    )


def _without_full_stop(source: str) -> str:
    """The answer without the full stop that ends it as a sentence (``None.``,
    ``tensor([1., 2.]).``, ``torch.int64.``, ``SigmoidBackward0.``, ``2.5.``); a number's
    decimal point (``2.``) is kept. What comes before the dot decides: a number written
    with digits alone takes it as its point, anything else (a name ending in a digit too)
    ends there."""
    before = re.search(r"([\w.]*)\.$", source)
    if before is None or source[-2:-1].isspace():
        return source
    if re.fullmatch(r"\d[\d_]*|\.+", before[1]):  # 2. is a number, ... Python's Ellipsis
        return source
    return source[:-1]


def is_writable(value: Value) -> bool:
    """Whether a learner can write ``value``: it renders to an answer the parser accepts.

    False for ``Opaque`` values and for values too big or too deeply nested for the
    answer limits (a truth like that cannot be asked as a prediction).
    """
    if isinstance(value, Opaque):
        return False
    try:
        parse_answer(render_answer(value))
    except AnswerSyntaxError:
        return False
    return True


def _parse(source: str) -> ast.expr:
    if _bracket_depth(source) > MAX_DEPTH:
        raise AnswerSyntaxError(say("it is nested more than {limit} levels deep", limit=MAX_DEPTH))
    try:
        return syntax.parse(source, "eval").body
    except SyntaxError as exc:
        raise AnswerSyntaxError(syntax_reason(exc)) from None
    except ValueError:  # null bytes, on Pythons that do not call that a SyntaxError
        raise AnswerSyntaxError(say("it is not valid Python syntax")) from None
    except (MemoryError, RecursionError):  # CPython's parser stack overflows on "- - - ... 1"
        raise AnswerSyntaxError(say("it is too deeply nested")) from None


def syntax_reason(exc: SyntaxError) -> Told:
    """What is wrong, as the learner would say it: an unclosed quote or bracket, by name."""
    msg = exc.msg or ""
    if msg.startswith(("unterminated string", "unterminated triple-quoted", "EOL while")):
        return say("it has an unclosed quote: a string must end with the quote it starts with")
    never_closed = re.match(r"'(.)' was never closed", msg)
    if never_closed:
        return say(
            "it has an unclosed bracket: a `{bracket}` is never closed", bracket=never_closed[1]
        )
    unmatched = re.match(r"unmatched '(.)'", msg)
    if unmatched:
        return say("it has a `{bracket}` that closes no bracket", bracket=unmatched[1])
    if exc.offset:
        return say("it is not valid Python syntax at character {offset}", offset=exc.offset)
    return say("it is not valid Python syntax")


def _bracket_depth(source: str) -> int:
    depth = deepest = 0
    for ch in _ANGLE_OR_STRING.sub("''", source):
        depth += (ch in "([{") - (ch in ")]}")
        deepest = max(deepest, depth)
    return deepest
