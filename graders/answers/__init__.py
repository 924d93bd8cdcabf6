"""The answer algebra: what learners write and what torch gives, as plain data.

``values`` holds the shared data types; ``parse`` reads a learner's literal (never
running it), after ``keyboard`` has read a keyboard's punctuation as ASCII; ``render``
writes a value back as the literal a learner would type; ``compare`` judges an answer
against a truth, by value (``by_value``) unless the question keeps its type strict;
``from_torch`` describes torch objects as values (next to torch, in a sandbox child).
What each language's keyboard types and its words (``keyboard``, ``words``, ``spelling``
read them) come from ``graders.i18n``'s registry: no module here names a language.
Nothing here executes learner text.
"""

from .parse import AnswerSyntaxError, parse_answer
from .render import render_answer

__all__ = ["AnswerSyntaxError", "parse_answer", "render_answer"]
