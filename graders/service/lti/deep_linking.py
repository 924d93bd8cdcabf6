"""Deep linking: an instructor adding the course to an LMS assignment picks one of its
assignments, and the tool answers the platform with a signed link to it.

    ticket = request_ticket(keys, accepted)          # carried by the picker's form
    asked = read_ticket(keys, ticket)                # what the platform asked, checked
    token = response(keys, asked, item)              # the signed LtiDeepLinkingResponse

The picker's form carries what the platform asked (where to answer, its ``data``) in a
ticket the tool signed itself, so the choice needs no cookie (an LMS's dialog is an
iframe) and cannot be pointed at another address. The answer is one resource link whose
custom parameter ``assignment`` names the assignment, with a line item (``resourceId``:
the assignment, ``scoreMaximum``: its points) for the LMS to make.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from ...i18n import N_
from ..refusals import Refusal, Refused
from .keys import NotOurs, ToolKeys
from .messages import DL, LTI
from .tool import Accepted

TICKET_AUDIENCE = "graders deep linking"
TICKET_S = 3600  # an instructor may take a while to choose


@dataclass(frozen=True)
class Asked:
    """A deep-linking request, as the picker carries it."""

    platform_id: int
    client_id: str
    issuer: str
    deployment_id: str
    return_url: str
    data: str | None
    student: str


@dataclass(frozen=True)
class LinkedAssignment:
    """The link chosen: an assignment, its title and points, and the tool's launch URL."""

    assignment: str
    title: str
    points: float
    launch_url: str


def request_ticket(keys: ToolKeys, accepted: Accepted) -> str:
    """What the platform asked, signed by the tool for the picker's form."""
    launch = accepted.launch
    now = int(time.time())
    claims = {
        "iss": TICKET_AUDIENCE,
        "aud": TICKET_AUDIENCE,
        "iat": now,
        "exp": now + TICKET_S,
        "platform": accepted.platform.id,
        "client_id": accepted.platform.client_id,
        "issuer": accepted.platform.issuer,
        "deployment_id": launch.deployment_id,
        "return_url": launch.return_url,
        "data": launch.deep_link_data,
        "student": accepted.who.student,
    }
    return keys.sign(claims)


def read_ticket(keys: ToolKeys, ticket: str) -> Asked:
    """The request a picker's ticket carries; ``Refused`` when it is not the tool's own."""
    try:
        c = keys.read(ticket, TICKET_AUDIENCE)
        return Asked(
            int(c["platform"]),
            str(c["client_id"]),
            str(c["issuer"]),
            str(c["deployment_id"]),
            str(c["return_url"]),
            c.get("data"),
            str(c["student"]),
        )
    except (NotOurs, KeyError, TypeError, ValueError):
        text = N_("This form has expired: open the assignment picker again from your LMS.")
        raise Refused(403, Refusal(text)) from None


def response(keys: ToolKeys, asked: Asked, item: LinkedAssignment) -> str:
    """The signed ``LtiDeepLinkingResponse``: one resource link to ``item``."""
    now = int(time.time())
    link: dict[str, Any] = {
        "type": "ltiResourceLink",
        "title": item.title,
        "url": item.launch_url,
        "custom": {"assignment": item.assignment},
        "lineItem": {
            "scoreMaximum": item.points,
            "label": item.title,
            "resourceId": item.assignment,
            "tag": "graders",
        },
    }
    claims: dict[str, Any] = {
        "iss": asked.client_id,
        "aud": [asked.issuer],
        "azp": asked.client_id,
        "iat": now,
        "exp": now + 600,
        "nonce": secrets.token_urlsafe(16),
        LTI + "message_type": "LtiDeepLinkingResponse",
        LTI + "version": "1.3.0",
        LTI + "deployment_id": asked.deployment_id,
        DL + "content_items": [link],
    }
    if asked.data is not None:
        claims[DL + "data"] = asked.data  # given back as it came: the platform's own state
    return keys.sign(claims)
