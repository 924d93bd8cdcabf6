"""What an LMS administrator enters to register the tool: Canvas's developer key (its
JSON) and Moodle's "External tool" form, for a service reached at ``base_url``.

    canvas_key(base_url, title)     # a dict: Canvas > Developer Keys > + LTI Key > Paste JSON
    moodle_fields(base_url)         # (field, value) pairs, in the order Moodle's form asks
"""

from __future__ import annotations

from typing import Any

from .passback import AGS
from .roster import NRPS_SCOPES

SCOPES = (
    AGS + "lineitem",
    AGS + "lineitem.readonly",
    AGS + "result.readonly",
    AGS + "score",
    *NRPS_SCOPES,
)


def canvas_key(base_url: str, title: str) -> dict[str, Any]:
    """Canvas's developer key JSON: deep linking from the assignment and link pickers."""
    base = base_url.rstrip("/")
    placements = [
        {
            "placement": placement,
            "message_type": "LtiDeepLinkingRequest",
            "target_link_uri": f"{base}/lti/launch",
        }
        for placement in ("assignment_selection", "link_selection")
    ]
    return {
        "title": title,
        "description": f"{title}: notebooks graded within seconds, grades sent back to Canvas.",
        "oidc_initiation_url": f"{base}/lti/login",
        "target_link_uri": f"{base}/lti/launch",
        "public_jwk_url": f"{base}/lti/jwks",
        "scopes": list(SCOPES),
        "extensions": [
            {
                "platform": "canvas.instructure.com",
                "privacy_level": "public",  # the login and email: how launches find learner ids
                "settings": {"placements": placements},
            }
        ],
        "custom_fields": {},
    }


def moodle_fields(base_url: str) -> list[tuple[str, str]]:
    """Moodle's Site administration > Plugins > External tool > Manage tools > configure."""
    base = base_url.rstrip("/")
    return [
        ("Tool URL", f"{base}/lti/launch"),
        ("LTI version", "LTI 1.3"),
        ("Public key type", "Keyset URL"),
        ("Public keyset", f"{base}/lti/jwks"),
        ("Initiate login URL", f"{base}/lti/login"),
        ("Redirection URI(s)", f"{base}/lti/launch"),
        ("Supports Deep Linking (Content-Item Message)", "yes"),
        ("Content Selection URL", f"{base}/lti/launch"),
        (
            "IMS LTI Assignment and Grade Services",
            "Use this service for grade sync and column management",
        ),
        (
            "IMS LTI Names and Role Provisioning",
            "Use this service to retrieve members' information",
        ),
        ("Share launcher's name with tool", "Always"),
        ("Share launcher's email with tool", "Always"),
    ]
