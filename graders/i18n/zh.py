"""Chinese: how it writes a line's marks, what its input method types, a learner's words.

It writes the marks between the parts of a line full-width, with no space after
(``；``, ``，``, ``：``), and ends a sentence with ``。``, a question with ``？``.

Its input method types full-width forms (``（True，True）``, ``RuntimeError：``,
``torch.Size([3，4])``), corner quotes (``「a」``, ``『a』``), the ideographic space,
``、`` for a comma, ``。`` for a full stop, ``【】`` for brackets and ``《》`` for angle
brackets, ``——`` for an underscore (curly quotes too, which are any keyboard's).

Its words: ``是``/``否``, ``对``/``错``, ``是的``/``不是``, ``对的``/``不对``; numerals ``零``
(``〇``) … ``九十九`` with ``两`` for two; a number, a measure word and perhaps what it
counts (``3 个``, ``两个元素``); "no error" (``没有报错``, ``不报错`` ...) and "raises X"
(``抛出 RuntimeError``).
"""

from __future__ import annotations

import re

from .language import Keyboard, Language, Words

# U+FF01-U+FF5E are the full-width forms of "!" to "~", in ASCII's order.
_FULL_WIDTH = {chr(code): chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)}
KEYBOARD = Keyboard(
    marks={
        **_FULL_WIDTH,
        "\u3000": " ",  # ideographic space
        "。": ".",
        "【": "[",
        "】": "]",
        "《": "<",
        "》": ">",
        "〈": "<",
        "〉": ">",
    },
    commas=frozenset("，、"),
    double_quotes=frozenset("「」＂"),
    single_quotes=frozenset("『』＇"),
    comment=frozenset("＃"),
    closers=frozenset("）】」』"),
    full_stop="。",
    underscore="——",  # two em dashes
)
BOOLEANS: dict[str, bool] = {
    "是": True,
    "是的": True,
    "对": True,
    "对的": True,
    "否": False,
    "不是": False,
    "错": False,
    "错的": False,
    "不对": False,
    "不是的": False,
    # 真/假 are how Chinese texts on programming name the booleans
    "真": True,
    "假": False,
}
DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5}
DIGITS |= {"六": 6, "七": 7, "八": 8, "九": 9}
_LARGE = frozenset("百千万亿")
# "3 个", "两个元素", "1 个 tensor": a measure word, then perhaps a noun.
_COUNTED = re.compile(r"(?P<number>.+?)\s*(?:个|次|项|条)\s*(?P<noun>[^\d\s]{0,6}|[A-Za-z]+)")


def number(text: str) -> int | None:
    """``零`` … ``九十九`` as an int (``十`` ten, ``十二`` twelve, ``二十`` twenty, ``两``
    two); None for anything else."""
    if len(text) == 1 and text in DIGITS:
        return DIGITS[text]
    tens, sep, ones = text.partition("十")
    if not sep or len(text) > 3:
        return None
    high = 1 if not tens else DIGITS.get(tens)
    low = 0 if not ones else DIGITS.get(ones)
    if not high or low is None or (ones and low == 0):
        return None  # 零十, 十零, 十十: not how a number is written
    return 10 * high + low


def number_words(text: str) -> bool:
    """Whether ``text`` is made of numerals only (``一百``, ``三千``)."""
    return bool(text) and all(c in DIGITS or c == "十" or c in _LARGE for c in text)


LANGUAGE = Language(
    code="zh",
    autonym="中文",
    english_name="Chinese",
    punctuation={"; ": "；", ", ": "，", ": ": "："},
    full_stop="。",
    question_mark="？",
    keyboard=KEYBOARD,
    words=Words(
        booleans=BOOLEANS,
        number=number,
        number_words=number_words,
        counted=_COUNTED,
        no_error=(
            "没有报错",
            "没报错",
            "无报错",
            "不报错",
            "不会报错",
            "没有错误",
            "没错误",
            "无错误",
            "没有异常",
            "无异常",
            "不抛出异常",
            "没有抛出异常",
            "不会抛出异常",
            "不抛出错误",
            "没有抛出错误",
            "不会抛出错误",
            "不会出错",
            "没有出错",
            "不出错",
            "正常运行",
            "运行正常",
        ),
        raises=(
            (r"(?:会\s*)?(?:抛出|报|引发|触发|产生)(?:了)?\s*", r"(?:\s*(?:异常|错误))?"),
            # 报错：RuntimeError, 出错 RuntimeError, 错误：RuntimeError
            (r"(?:会\s*)?(?:报错|出错|错误|异常)(?:了)?\s*:?\s*", ""),
        ),
    ),
)
