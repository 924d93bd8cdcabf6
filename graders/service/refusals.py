"""A request the service refuses: an HTTP status and a message in the reader's language.

    raise Refused(429, Refusal(N_("Wait {seconds} s ..."), {"seconds": 12}), retry_after=12)

A refusal is data until it is answered: graders' English sentence (a catalogue id) and its
fields, rendered in the language of whoever reads it (``in_language``), as JSON for the API
and as a page for a browser (``app``'s error handlers). It is not a ``said.Message``, which is
kept in a results document: a refusal is answered at once and never stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..i18n import _, speaking
from ..said import Said, render


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused: one of graders' sentences (with ``{field}`` placeholders) and
    its fields."""

    text: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def in_language(self, language: str) -> str:
        """The sentence in ``language`` (English where the catalogue lacks it); a field that
        is a part of what graders says (``said.Said``) rendered in ``language`` too."""
        with speaking(language):
            fields = {name: _field_in(value, language) for name, value in self.fields.items()}
            return _(self.text).format(**fields)


def _field_in(value: Any, language: str) -> Any:
    return render(value, language) if isinstance(value, Said) else value


class Refused(Exception):
    """Answer the request with ``status`` and ``message`` instead of what it asked for."""

    def __init__(
        self,
        status: int,
        message: Refusal,
        *,
        retry_after: int | None = None,
        headers: Mapping[str, str] | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(message.text)
        self.status = status
        self.message = message
        # A word a program can act on (the API's ``reason``), where the status alone does
        # not tell: a 429 for the attempt limit, after which no attempt opens, or for the
        # least time between two attempts.
        self.reason = reason
        self.headers = dict(headers or {})
        if retry_after is not None:
            self.headers["Retry-After"] = str(retry_after)
        self.retry_after = retry_after
