"""A platform's signed message (the launch's ``id_token``), checked to the letter of LTI
1.3 and OpenID Connect before anything in it is believed.

    launch = checked_launch(id_token, platform, key_set_for, nonce=expected, deployed=...,
                            target=asked, tool_url=base_url)

Checked, in order: the signature (RS256, a key of the platform's JWKS: an unknown key id
fetches the set again), ``iss``, ``aud`` (and ``azp`` when there are several audiences),
``exp`` and ``iat`` (a minute of clock skew), the nonce of this login, a registered
``deployment_id``, the ``target_link_uri`` (a URL of this tool: ``of_tool``, and the one
the login initiation asked for), the message type and version 1.3.0. Each refusal says
which in words a learner can pass on to their instructor (``Refused``, 401 or 400).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from ...i18n import N_
from ..refusals import Refusal, Refused
from .platforms import Platform, PlatformKeysUnavailable

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
RESOURCE_LINK, DEEP_LINKING = "LtiResourceLinkRequest", "LtiDeepLinkingRequest"
ALGORITHMS = ["RS256"]  # what LTI 1.3 requires every platform to sign with
LEEWAY_S = 60  # clock skew between the platform and this server
DEFAULT_PORTS = {"http": 80, "https": 443}
NOT_THE_TOOL = N_("The LMS's link ({target}) does not lead to this course: ask your instructor.")


@dataclass(frozen=True)
class Launch:
    """What a checked launch says: who, from which LMS course, asking for what."""

    message_type: str
    deployment_id: str
    sub: str
    roles: tuple[str, ...]
    locale: str | None
    context_id: str | None
    context_title: str
    custom: Mapping[str, str] = field(default_factory=dict)
    resource_link: str | None = None
    lineitems_url: str | None = None  # AGS: the context's line items
    lineitem_url: str | None = None  # AGS: this link's own line item, when it has one
    ags_scopes: tuple[str, ...] = ()
    memberships_url: str | None = None  # NRPS
    return_url: str | None = None  # deep linking: where the answer goes
    deep_link_data: str | None = None  # deep linking: given back as it came
    person: Mapping[str, str] = field(default_factory=dict)  # name, email, ids, as sent


def refused(text: str, **fields: Any) -> Refused:
    return Refused(401, Refusal(text, fields))


def checked_launch(
    id_token: str,
    platform: Platform,
    key_set_for: Callable[[str | None], KeySet],
    *,
    nonce: str,
    deployed: Callable[[str], bool],
    target: str | None,
    tool_url: str,
) -> Launch:
    """``id_token`` checked whole; ``Refused`` saying what is wrong otherwise. ``target``
    is the login initiation's ``target_link_uri`` (None: a login that kept none), and
    ``tool_url`` the tool's base URL."""
    claims = _verified(id_token, key_set_for)
    _check_registered(claims, platform)
    if claims.get("nonce") != nonce:
        raise refused(N_("This sign-in was already used: open the assignment again from your LMS."))
    deployment = claims.get(LTI + "deployment_id")
    if not isinstance(deployment, str) or not deployed(deployment):
        raise refused(
            N_(
                "The LMS's deployment '{deployment}' is not registered with this course: ask "
                "your instructor."
            ),
            deployment=str(deployment),
        )
    _check_target(claims.get(LTI + "target_link_uri"), target, tool_url)
    if claims.get(LTI + "version") != "1.3.0":
        raise refused(N_("The LMS did not send an LTI 1.3 launch."))
    kind = claims.get(LTI + "message_type")
    if kind not in (RESOURCE_LINK, DEEP_LINKING):
        raise refused(N_("The LMS did not send an LTI 1.3 launch."))
    return _launch(claims, kind, deployment)


def of_tool(url: str, tool_url: str) -> bool:
    """Whether ``url`` is one of the tool's own: the origin of its base URL ``tool_url``
    (scheme, host, port), within its path, with no user part, no blank or backslash, and
    no ``.`` or ``..`` segment (which could climb out of the path)."""
    if any(c in url for c in "\\ \t\r\n"):
        return False
    try:
        asked, base = urlsplit(url), urlsplit(tool_url)
        where = [(p.scheme.lower(), p.hostname, p.port) for p in (asked, base)]
    except ValueError:  # a port that is no number
        return False
    (scheme, host, port), (tool_scheme, tool_host, tool_port) = where
    if (
        scheme not in DEFAULT_PORTS
        or (scheme, host) != (tool_scheme, tool_host)  # ``hostname`` is lowercase
        or (port or DEFAULT_PORTS[scheme]) != (tool_port or DEFAULT_PORTS.get(tool_scheme))
        or not host
        or asked.username is not None
    ):
        return False
    if any(segment in (".", "..") for segment in unquote(asked.path).split("/")):
        return False
    prefix = base.path.rstrip("/")
    return not prefix or asked.path == prefix or asked.path.startswith(prefix + "/")


def _check_target(claimed: Any, asked: str | None, tool_url: str) -> None:
    """The launch's ``target_link_uri``: the tool's, and what its login asked for."""
    if not isinstance(claimed, str):  # a claim every LTI 1.3 launch carries
        raise refused(N_("The LMS did not send an LTI 1.3 launch."))
    if not of_tool(claimed, tool_url):
        raise refused(NOT_THE_TOOL, target=claimed[:200])
    if asked is not None and claimed != asked:
        raise refused(
            N_(
                "The LMS's launch does not lead where its sign-in asked: open the assignment "
                "again from your LMS."
            )
        )


def _verified(id_token: str, key_set_for: Callable[[str | None], KeySet]) -> dict[str, Any]:
    try:
        header = jws.extract_compact(id_token.encode()).protected
    except (JoseError, ValueError):
        raise refused(
            N_("The LMS's message could not be read: open the assignment again.")
        ) from None
    kid = header.get("kid")
    try:
        keys = key_set_for(kid if isinstance(kid, str) else None)
    except PlatformKeysUnavailable:
        raise Refused(
            502, Refusal(N_("The LMS's keys could not be fetched: try again in a minute."))
        ) from None
    try:
        token = jwt.decode(id_token, keys, algorithms=ALGORITHMS)
    except (JoseError, ValueError):
        raise refused(
            N_("The LMS's message is not signed by the LMS this course knows: ask your instructor.")
        ) from None
    return dict(token.claims)


def _check_registered(claims: Mapping[str, Any], platform: Platform) -> None:
    """``iss``, ``aud``/``azp``, ``exp`` and ``iat``, by OpenID Connect's rules."""
    audience = claims.get("aud")
    audiences = [audience] if isinstance(audience, str) else list(audience or [])
    azp = claims.get("azp")
    if (
        claims.get("iss") != platform.issuer
        or platform.client_id not in audiences
        or (len(audiences) > 1 and azp is None)
        or (azp is not None and azp != platform.client_id)
    ):
        raise refused(
            N_(
                "The LMS's message is not meant for this course (issuer or audience): ask your "
                "instructor."
            )
        )
    now = time.time()
    exp, iat = claims.get("exp"), claims.get("iat")
    if not isinstance(exp, int | float) or not isinstance(iat, int | float):
        raise refused(N_("The LMS's message could not be read: open the assignment again."))
    if exp < now - LEEWAY_S or iat > now + LEEWAY_S:
        raise refused(N_("This sign-in from your LMS has expired: open the assignment again."))
    if not isinstance(claims.get("sub"), str) or not claims["sub"]:
        raise refused(N_("The LMS did not say who you are: sign in to the LMS and try again."))


def _launch(claims: Mapping[str, Any], kind: str, deployment: str) -> Launch:
    context = _mapping(claims.get(LTI + "context"))
    ags = _mapping(claims.get(AGS_CLAIM))
    nrps = _mapping(claims.get(NRPS_CLAIM))
    settings = _mapping(claims.get(DL + "deep_linking_settings"))
    link = _mapping(claims.get(LTI + "resource_link"))
    custom = {str(k): str(v) for k, v in _mapping(claims.get(LTI + "custom")).items()}
    person = {
        name: str(claims[name])
        for name in ("name", "given_name", "family_name", "email", "preferred_username")
        if isinstance(claims.get(name), str)
    }
    lis = _mapping(claims.get(LTI + "lis"))
    if isinstance(lis.get("person_sourcedid"), str):
        person["sourcedid"] = lis["person_sourcedid"]
    locale = _mapping(claims.get(LTI + "launch_presentation")).get("locale")
    return Launch(
        message_type=kind,
        deployment_id=deployment,
        sub=str(claims["sub"]),
        roles=tuple(str(r) for r in claims.get(LTI + "roles") or ()),
        locale=locale if isinstance(locale, str) else claims.get("locale"),
        context_id=str(context["id"]) if "id" in context else None,
        context_title=str(context.get("title") or context.get("label") or ""),
        custom=custom,
        resource_link=str(link["id"]) if "id" in link else None,
        lineitems_url=_str(ags.get("lineitems")),
        lineitem_url=_str(ags.get("lineitem")),
        ags_scopes=tuple(str(s) for s in ags.get("scope") or ()),
        memberships_url=_str(nrps.get("context_memberships_url")),
        return_url=_str(settings.get("deep_link_return_url")),
        deep_link_data=_str(settings.get("data")),
        person=person,
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
