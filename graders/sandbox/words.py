"""What the sandbox says about a job, as data: an English sentence and its values.

The sandbox imports nothing of graders, so it cannot speak a learner's language. It words
each verdict once, in English (``str(words)``, for logs and for whoever reads English),
and hands over the sentence and its values as they are: the trusted side says the same
sentence again in the learner's language (``kinds.code.sandbox_words``), without reading
the English back. A value is a piece of text (a limit, a signal's name, a reason) or a
sentence of its own (the hint inside "killed by SIGSEGV (a segmentation fault)").

Only the sandbox's own code makes ``Words``: what a child reports is free text, never a
sentence of the sandbox's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Union

MAX_NESTING = 3  # a sentence inside a sentence inside a sentence is the deepest there is
Field = Union[str, "Words"]


@dataclass(frozen=True)
class Words:
    """A sentence of the sandbox (a ``str.format`` template) and the values of its fields."""

    sentence: str
    fields: Mapping[str, Field] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.sentence.format(**{name: str(value) for name, value in self.fields.items()})

    def to_json(self) -> dict[str, Any]:
        """The JSON the keeper's result frame carries."""
        return {
            "sentence": self.sentence,
            "fields": {
                name: value.to_json() if isinstance(value, Words) else value
                for name, value in self.fields.items()
            },
        }

    @classmethod
    def from_json(cls, data: Any, nesting: int = 1) -> Words:
        """The words a keeper wrote; ``ValueError`` for anything a keeper does not write."""
        if nesting > MAX_NESTING:
            raise ValueError("the words are nested too deeply")
        if not isinstance(data, dict) or set(data) != {"sentence", "fields"}:
            raise ValueError("the words are malformed")
        sentence, fields = data["sentence"], data["fields"]
        if not isinstance(sentence, str) or not isinstance(fields, dict):
            raise ValueError("the words are malformed")
        read: dict[str, Field] = {}
        for name, value in fields.items():
            if not isinstance(name, str):
                raise ValueError("the words are malformed")
            read[name] = value if isinstance(value, str) else cls.from_json(value, nesting + 1)
        words = cls(sentence, read)
        try:
            str(words)  # every field the sentence names is there
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError("the words do not fill their sentence") from exc
        return words
