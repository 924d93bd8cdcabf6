"""The texts a learner who missed a question reads while its expected answer is held back,
and whether one of them states that answer (for ``graders validate``).

While the key is held back (before the due date, by default), a learner who missed a
question reads the explanation of the misconception their answer matches, and the
question's own explanation only where its author marked it ``explain_before_due: true``.
Each of those texts, in every language and every variant, is searched for the answer
torch gives, as a learner writes it (``tensor(2.)``, ``(False, True)``, ``RuntimeError``,
``None``, ``no error`` in each course language's words). A lone ``True`` or ``False`` is
not searched for: the status of the question already tells it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...answers.parse import no_error_phrases
from ...answers.values import NoError, Scalar, Value
from ...course.marks import Marks, PathKey, dotted
from ...course.templating import other_languages
from ...errors import Problem
from .model import PredictExercise
from .truth import Truths


def key_in_texts(exercise: PredictExercise, truths: Truths, marks: Marks) -> list[Problem]:
    """A problem for each text shown while the key is held back that states the key."""
    problems = []
    for i, q in enumerate(exercise.questions):
        truth = truths.questions.get(q.id)
        if truth is None or _told_by_status(truth.value):
            continue
        forms = _forms(truth.value, truth.literal)
        for path, reader in _shown_while_held(exercise, i):
            found = _first_stated(exercise, path, forms)
            if found is None:
                continue
            form, language = found
            fix = "remove `explain_before_due`, or " if path[-1] == "explain_before_due" else ""
            message = (
                f"{dotted(path)}: {reader} reads it before the due date, and it states the "
                f"expected answer `{form}` ({language}): {fix}rewrite it without it"
            )
            problems.append(Problem(marks.at(path), message))
    return problems


def states(text: str, form: str) -> bool:
    """Does ``text`` hold ``form`` as a whole (``4`` is not in ``§4``, ``x4`` nor ``0.4``)?"""
    before = r"(?<![\w.§])" if form[:1].isascii() and form[:1].isalnum() else ""
    after = r"(?![\w]|\.\d)" if form[-1:].isascii() and form[-1:].isalnum() else ""
    return re.search(before + re.escape(form) + after, text) is not None


def _told_by_status(value: Value) -> bool:
    # A yes/no question's status says its answer: "wrong" to `True` is `False`.
    return isinstance(value, Scalar) and isinstance(value.value, bool)


def _forms(value: Value, literal: str) -> tuple[str, ...]:
    """How a text may state the answer: its literal, and "no error" in every course
    language's words for a statement that raises nothing."""
    if isinstance(value, NoError):
        return tuple(dict.fromkeys([literal, *no_error_phrases()]))
    return (literal,)


def _shown_while_held(exercise: PredictExercise, i: int) -> Iterator[tuple[PathKey, str]]:
    """The texts of question ``i`` a learner who missed it reads while the key is held
    back, each with who reads it."""
    q = exercise.questions[i]
    if q.explain_before_due:
        yield ("questions", i, "explain_before_due"), "every learner"
    for j, m in enumerate(q.misconceptions):
        yield (
            ("questions", i, "misconceptions", j, "explain"),
            f"a learner who answers {m.answer!r}",
        )


def _first_stated(
    exercise: PredictExercise, path: PathKey, forms: tuple[str, ...]
) -> tuple[str, str] | None:
    """(the form, the language) of the first of ``forms`` the text at ``path`` states."""
    text_path = (*path[:-1], "explain")
    for language, text in _in_each_language(exercise, text_path):
        form = next((f for f in forms if states(text, f)), None)
        if form is not None:
            return form, language
    return None


def _in_each_language(exercise: PredictExercise, path: PathKey) -> Iterator[tuple[str, str]]:
    """(language, text) of the text at ``path``: the default language's, then the others'."""
    model: object = exercise
    for key in path:
        model = model[key] if isinstance(key, int) else getattr(model, key)  # type: ignore[index]
    languages = exercise.text_languages(path)
    yield (languages[0] if languages else "the default language"), str(model)
    yield from other_languages(exercise, path).items()
