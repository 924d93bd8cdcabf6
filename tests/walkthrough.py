"""Fourteen students' notebooks of the test course's nb1, and what a TA would give each.

Each row edits a released student notebook the way one student did (answers in quotes
or without, pasted copies, reordered or deleted cells, a traceback pasted as the answer,
syntax errors, a print line left in an answer cell, true/false in lower case, an
expression instead of a prediction, wrong answers, code left unfinished) and names the
points a teaching assistant reading the notebook would give: 13 in all (clone-basics 5,
detach-basics 4 in three questions, independent-copy 4 in four checks). The same rows
are graded by graders (`test_notebook_collect`) and by real nbgrader
(`test_nbgrader_interop`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from notebook_helpers import answer_index, fill

Notebook = dict[str, Any]
Key = dict[str, str]
THIRD = 4 / 3  # each detach-basics question: 3 questions scaled to 4 points


@dataclass(frozen=True)
class Student:
    name: str
    notebook: Callable[[Notebook, Key], Notebook]
    points: float  # what a TA gives the notebook


def _set(nb: Notebook, sources: dict[str, str]) -> Notebook:
    """``nb`` with the cells of ``sources``'s keys replaced, found by metadata."""
    nb = copy.deepcopy(nb)
    for key, index in answer_index(nb).items():
        if key in sources:
            nb["cells"][index]["source"] = sources[key]
    return nb


def _paste_after(nb: Notebook, key: str, source: str) -> Notebook:
    """A copy of ``key``'s answer cell pasted below it (Jupyter keeps the metadata)."""
    nb = copy.deepcopy(nb)
    index = answer_index(nb)[key]
    nb["cells"].insert(index + 1, copy.deepcopy(nb["cells"][index]) | {"source": source})
    nb["cells"][index + 1]["id"] = "pasted"
    return nb


def in_quotes(nb: Notebook, key: Key) -> Notebook:
    return fill(nb, key)


def without_quotes(nb: Notebook, key: Key) -> Notebook:
    return fill(nb, key, quoted=False)


def pasted_experiment(nb: Notebook, key: Key) -> Notebook:
    return _paste_after(fill(nb, key), "clone-basics/shares-memory", "a.data_ptr() == b.data_ptr()")


def pasted_changed_mind(nb: Notebook, key: Key) -> Notebook:
    return _paste_after(fill(nb, key), "clone-basics/shares-memory", 'answer = "True"')


def reordered(nb: Notebook, key: Key) -> Notebook:
    nb = fill(nb, key)
    nb["cells"] = nb["cells"][:1] + nb["cells"][:0:-1]
    return nb


def deleted(nb: Notebook, key: Key) -> Notebook:
    nb = fill(nb, key)
    del nb["cells"][answer_index(nb)["clone-basics/grad"]]
    return nb


def traceback_answers(nb: Notebook, key: Key) -> Notebook:
    return _set(
        fill(nb, key),
        {
            "detach-basics/resize-leaf": 'answer = "RuntimeError: cannot resize variables that '
            'require grad"',
            "clone-basics/backward": "answer = 'No error.'",
        },
    )


def syntax_errors(nb: Notebook, key: Key) -> Notebook:
    return _set(
        fill(nb, key),
        {
            "clone-basics/grad": f'answer = "{key["clone-basics/grad"]}',  # unclosed: read
            "detach-basics/flags": "answer = (True, False",  # unclosed bracket: invalid
        },
    )


def print_left_in(nb: Notebook, key: Key) -> Notebook:
    grad_fn = json.dumps(key["clone-basics/grad-fn"])
    return _set(fill(nb, key), {"clone-basics/grad-fn": f"print(b.grad_fn)\nanswer = {grad_fn}"})


def spelled_like_a_person(nb: Notebook, key: Key) -> Notebook:
    return _set(
        fill(nb, key),
        {
            "clone-basics/shares-memory": "answer = false",
            "detach-basics/flags": 'answer = "(true, false)"',
            "detach-basics/resize-leaf": 'answer = "Runtime Error"',
        },
    )


def expression(nb: Notebook, key: Key) -> Notebook:
    return _set(
        fill(nb, key), {"clone-basics/shares-memory": "answer = a.data_ptr() == b.data_ptr()"}
    )


WRONG = {
    "clone-basics/shares-memory": "True",
    "clone-basics/grad-fn": "None",
    "clone-basics/backward": "RuntimeError",
    "clone-basics/grad": "tensor(2.)",
    "detach-basics/flags": "(True, True)",
    "detach-basics/write-through": "tensor(0.4963)",
    "detach-basics/resize-leaf": "no error",
    "independent-copy": "def independent_copy(t):\n    return t.detach()\n",  # 2 of 4 checks
}


def wrong(nb: Notebook, key: Key) -> Notebook:
    return fill(nb, WRONG)


def partly_done(nb: Notebook, key: Key) -> Notebook:
    """Two right, one unanswered, one that does not parse; the code left as released."""
    nb = fill(nb, {k: key[k] for k in ("clone-basics/shares-memory", "detach-basics/flags")})
    return _set(
        nb,
        {
            "clone-basics/backward": "answer = RuntimeError",  # the truth is no error: wrong
            "detach-basics/resize-leaf": "answer = " + key["detach-basics/resize-leaf"],
            "clone-basics/grad": 'answer = "tensor(3.) +"',  # invalid
        },
    )


def untouched(nb: Notebook, key: Key) -> Notebook:
    return copy.deepcopy(nb)


STUDENTS = [
    Student("in-quotes", in_quotes, 13),
    Student("without-quotes", without_quotes, 13),
    Student("pasted-experiment", pasted_experiment, 13),
    Student("pasted-changed-mind", pasted_changed_mind, 12),
    Student("reordered", reordered, 13),
    Student("deleted", deleted, 11),
    Student("traceback-answers", traceback_answers, 13),
    Student("syntax-errors", syntax_errors, 13 - THIRD),
    Student("print-left-in", print_left_in, 13),
    Student("spelled-like-a-person", spelled_like_a_person, 13),
    Student("expression", expression, 12),
    Student("wrong", wrong, 2),
    Student("partly-done", partly_done, 1 + 2 * THIRD),
    Student("untouched", untouched, 0),
]
