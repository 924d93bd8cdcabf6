"""Results documents of earlier schemas read as this graders writes them (``SCHEMA``).

``results.ResultsDocument.parse`` upgrades a document when it reads it, and the gradebook's
revision 0004 upgrades the results it keeps (``upgraded_student``); both read plain JSON
here, before the document's types are made, so an old document never meets them.
"""

from __future__ import annotations

from typing import Any

# The shape of the document: 1 kept feedback as strings, with graders' sentences in other
# languages beside them (``said``); 2 keeps it as typed messages (``said.Text``); 3 gives a
# submission graders failed on a status of its own, ``internal`` (2 called it
# ``ungradable``, and only its error's words said it was graders' failure).
SCHEMA = 3
# How the error of such a submission began, in every schema before 3.
INTERNAL_ERROR = "internal error while"


def upgraded(document: dict[str, Any]) -> dict[str, Any]:
    """A document's JSON in this graders' schema (``SCHEMA``): one written by an earlier
    graders is upgraded; one by a newer graders is refused (``ValueError``)."""
    schema = document.get("schema", 1)
    if not isinstance(schema, int) or schema > SCHEMA:
        raise ValueError(f"schema: {schema!r} is not a schema this graders reads (<= {SCHEMA})")
    data = {k: v for k, v in document.items() if k != "schema"}
    if schema < SCHEMA and isinstance(data.get("students"), list):
        data["students"] = [
            upgraded_student(s) if isinstance(s, dict) else s for s in data["students"]
        ]
    return data


def upgraded_student(student: dict[str, Any]) -> dict[str, Any]:
    """A student's JSON of schema 1 in schema 2: each feedback, ``explain`` and ``error``
    string becomes its lines, each a literal, with the translations of graders' sentences
    the student's or question's ``said`` kept of it (a literal stays in the language it was
    written in, and a sentence kept in another language is shown in it); then the status of
    schema 3 (``internal_status``). A student already in schema 3 comes back as it is."""
    if "said" not in student and not _has_strings(student):
        return internal_status(student)
    data = {k: v for k, v in student.items() if k != "said"}
    if isinstance(data.get("error"), str):
        data["error"] = _lines(data["error"], student.get("said"))
    if isinstance(data.get("questions"), list):
        data["questions"] = [
            _question_v2(q) if isinstance(q, dict) else q for q in data["questions"]
        ]
    return internal_status(data)


def internal_status(student: dict[str, Any]) -> dict[str, Any]:
    """A student of schema 2 in schema 3: ``ungradable`` because graders failed on it (its
    error begins "internal error while") is ``internal``; anything else as it is."""
    if student.get("status") != "ungradable" or not _internal(student.get("error")):
        return student
    return {**student, "status": "internal"}


def _internal(error: Any) -> bool:
    first = error[0] if isinstance(error, list) and error else error
    if isinstance(first, dict):
        first = first.get("message", first.get("literal", ""))
    return isinstance(first, str) and first.startswith(INTERNAL_ERROR)


def _question_v2(question: dict[str, Any]) -> dict[str, Any]:
    data = {k: v for k, v in question.items() if k != "said"}
    for name in ("feedback", "explain"):
        if isinstance(data.get(name), str):
            data[name] = _lines(data[name], question.get("said"))
    return data


def _lines(text: str, said: Any) -> list[Any]:
    """``text``'s lines as literals, each with the translations ``said`` kept of it."""
    said = said if isinstance(said, dict) else {}
    found: list[Any] = []
    for line in text.split("\n") if text else []:
        others = {lang: kept[line] for lang, kept in said.items() if line in (kept or {})}
        found.append({"literal": line, "in": others} if others else line)
    return found


def _has_strings(student: dict[str, Any]) -> bool:
    if isinstance(student.get("error"), str):
        return True
    questions = student.get("questions")
    return isinstance(questions, list) and any(
        isinstance(q, dict) and isinstance(q.get("feedback"), str) for q in questions
    )
