"""The routes of LTI 1.3: the platform's login initiation, the launch, the tool's keys,
and the deep-linking picker.

    GET|POST /lti/login       third-party initiated login: a redirect to the platform's
                              authorization endpoint (state, nonce and the target_link_uri,
                              which must be the tool's own, in a state the tool
                              signs: a login initiation stores nothing)
    POST     /lti/launch      the platform's id_token: a resource link opens its assignment
                              signed in; a deep-linking request opens the picker
    GET      /lti/jwks        the tool's public keys
    GET      /lti/continue    after a launch: on to the page, or, in a frame that lost its
                              cookie, a link that opens it in a new window, where a page
                              names who would be signed in
    POST     /lti/continue    that page's form: the pass spent, this browser signed in
    POST     /lti/deep-link   the picker's choice: the signed answer, posted to the platform

A launch signs the person in as a token's sign-in does (``Credentials.start_workspace``), in
the browser that began the login only: ``/lti/login`` leaves a cookie named after its state
(``login_cookie``), and a launch whose browser does not send it back (someone else's launch
posted from another site: a login CSRF; or a browser that keeps no cookie in frames) signs
nobody in there: it goes on to the new-window page, which names who would be signed in.
An LMS shows the tool in an iframe of another site: the session cookie is then
``SameSite=None; Secure; Partitioned`` (over HTTPS; a browser sends no other to a frame),
and a browser that keeps no cookie in frames at all is offered the same page in a new
window, with a one-time pass (``Credentials.hand_off``) that signs it in there.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode, urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ...gradebook.service_tables import HANDOFF
from ...i18n import N_
from ...outbound import origin
from ..gate import Exemptions
from ..identity import SESSION_COOKIE, SESSION_HOURS, Identity, SessionCookie, identify
from ..refusals import Refusal, Refused
from ..state import LANGUAGE_COOKIE, Service, service_of
from . import deep_linking
from .messages import DEEP_LINKING, NOT_THE_TOOL, of_tool
from .tool import LOGIN_GONE, LOGIN_MINUTES, Accepted, digest

LOGIN_FIELDS = ("iss", "login_hint", "target_link_uri")


# What the pages' form gate (``gate.FormGate``) lets by without a form token, and why.
EXEMPTIONS = Exemptions(
    cross_site={
        "/lti/login": "the LMS posts it from its site; it only starts a sign-in",
        "/lti/launch": (
            "the LMS posts it; the signed id_token, state and nonce prove it, and it signs in "
            "only the browser that began the login (its login cookie)"
        ),
    },
    own_token={"/lti/deep-link": "the signed ticket; the LMS's frame may block cookies"},
)


def routes() -> list[Route]:
    return [
        Route("/lti/login", login, methods=["GET", "POST"]),
        Route("/lti/launch", launch, methods=["POST"]),
        Route("/lti/jwks", jwks),
        Route("/lti/continue", continue_),
        Route("/lti/continue", continue_here, methods=["POST"]),
        Route("/lti/deep-link", deep_link, methods=["POST"]),
    ]


def base_url(service: Service, request: Request) -> str:
    """Where the LMS reaches the tool: ``--base-url``, else the request's own address."""
    return service.base_url or str(request.base_url).rstrip("/")


async def login(request: Request) -> Response:
    service = service_of(request)
    asked = dict(request.query_params)
    if request.method == "POST":
        form = await request.form(max_files=0, max_fields=16)
        asked |= {k: v for k, v in form.items() if isinstance(v, str)}
    if any(not asked.get(name) for name in LOGIN_FIELDS):
        text = N_("The LMS's sign-in request lacks iss, login_hint or target_link_uri.")
        raise Refused(400, Refusal(text))
    tool = service.lti
    platform = await run_in_threadpool(tool.platforms.find, asked["iss"], asked.get("client_id"))
    if platform is None:
        text = N_("This LMS ({issuer}) is not registered with this course: ask your instructor.")
        raise Refused(400, Refusal(text, {"issuer": asked["iss"]}))
    deployment = asked.get("lti_deployment_id")
    if deployment and not await run_in_threadpool(tool.platforms.deployed, platform, deployment):
        text = N_(
            "The LMS's deployment '{deployment}' is not registered with this course: ask "
            "your instructor."
        )
        raise Refused(400, Refusal(text, {"deployment": deployment}))
    target = asked["target_link_uri"]
    if not of_tool(target, base_url(service, request)):  # never sent on elsewhere
        raise Refused(400, Refusal(NOT_THE_TOOL, {"target": target[:200]}))
    state, nonce = await run_in_threadpool(tool.begin_login, platform, target)
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": platform.client_id,
        "redirect_uri": base_url(service, request) + "/lti/launch",
        "login_hint": asked["login_hint"],
        "state": state,
        "nonce": nonce,
    }
    if asked.get("lti_message_hint"):
        query["lti_message_hint"] = asked["lti_message_hint"]
    joiner = "&" if urlsplit(platform.auth_url).query else "?"
    response = RedirectResponse(platform.auth_url + joiner + urlencode(query), 302)
    _cookie(request, response, login_cookie(request, state), "1", LOGIN_MINUTES * 60)
    return response


def login_cookie(request: Request, state: str) -> str:
    """The cookie that binds a login to the browser that began it: one per login (two tabs
    launch side by side), named after the state's digest. Over HTTPS its name has the
    ``__Host-`` prefix, so no other site of the same domain can set it."""
    prefix = "__Host-" if request.url.scheme == "https" else ""
    return f"{prefix}graders-lti-{digest(state)[:20]}"


async def launch(request: Request) -> Response:
    from ..pages import render

    service = service_of(request)
    form = await request.form(max_files=0, max_fields=8)
    if form.get("error"):
        text = N_("The LMS refused the sign-in ({error}): open the assignment again.")
        raise Refused(401, Refusal(text, {"error": str(form.get("error"))[:200]}))
    id_token, state = str(form.get("id_token", "")), str(form.get("state", ""))
    if not id_token or not state:
        raise Refused(400, Refusal(N_("The LMS's launch lacks its id_token or state.")))
    began_here = request.cookies.get(login_cookie(request, state)) is not None
    accepted = await run_in_threadpool(
        service.lti.accept_launch,
        id_token,
        state,
        lambda a: service.course.assignment(a) is not None,
        base_url(service, request),
    )
    who = accepted.who
    if accepted.launch.message_type == DEEP_LINKING:  # an instructor's (``accept_launch``)
        ticket = await run_in_threadpool(deep_linking.request_ticket, service.lti.keys, accepted)
        context = {"ticket": ticket, "assignments": service.course.assignments}
        response: Response = render(request, "lti_picker.html.j2", who, context)
    else:
        handoff = await run_in_threadpool(service.credentials.hand_off, who)
        query = urlencode({"next": _target(accepted), "pass": handoff})
        response = RedirectResponse(f"/lti/continue?{query}", 303)
    if began_here:
        secret = await run_in_threadpool(service.credentials.start_workspace, who)
        _sign_in(request, response, secret)
        # Spent: expired with the attributes it was set with (a __Host- or partitioned
        # cookie is only replaced by one set the same way).
        _cookie(request, response, login_cookie(request, state), "", 0)
    language = _language(service, accepted.launch.locale)
    if language is not None:
        _cookie(request, response, LANGUAGE_COOKIE, language, 365 * 24 * 3600)
    return response


async def continue_(request: Request) -> Response:
    """On to the launched page when the browser kept the session; else a new window."""
    from ..pages import render

    service = service_of(request)
    wanted = request.query_params.get("next", "/assignments")
    target = wanted if _local(wanted) else "/assignments"
    handoff = request.query_params.get("pass", "")
    asked = await run_in_threadpool(identify, request, service.credentials, (SessionCookie(),))
    holder = await run_in_threadpool(service.credentials.identity, handoff, HANDOFF)
    # The launch's own cookie came back (not an older one of someone else's): go on.
    if asked.identity is not None and holder in (None, asked.identity):
        if holder is not None:
            await run_in_threadpool(service.credentials.take, handoff)  # not needed: gone
        return RedirectResponse(target, 303)
    if request.query_params.get("window") == "new" and handoff:
        # A link anyone can send: it signs nobody in. The page names who would be, and its
        # form (a POST, through the gate like every change) spends the pass.
        if holder is None:
            raise Refused(401, Refusal(LOGIN_GONE))
        other = asked.identity.student if asked.identity is not None else None
        context = {"student": holder.student, "signed_in_as": other}
        return render(
            request,
            "lti_continue.html.j2",
            asked.identity,
            context | {"handoff": handoff, "target": target},
        )
    new_window = "/lti/continue?" + urlencode({"next": target, "pass": handoff, "window": "new"})
    # Named: a launch posted by someone else's page would sign this browser in as them.
    context = {"new_window": new_window, "student": holder.student if holder else None}
    return render(request, "lti_frame.html.j2", None, context)


async def continue_here(request: Request) -> Response:
    """The new window's form: spend the pass and sign this browser in as its holder."""
    service = service_of(request)
    form = await request.form(max_files=0, max_fields=4)
    wanted = str(form.get("next", "/assignments"))
    who = await run_in_threadpool(service.credentials.take, str(form.get("pass", "")))
    if who is None:
        raise Refused(401, Refusal(LOGIN_GONE))
    secret = await run_in_threadpool(service.credentials.start_workspace, who)
    response = RedirectResponse(wanted if _local(wanted) else "/assignments", 303)
    _sign_in(request, response, secret)
    return response


async def jwks(request: Request) -> Response:
    keys = await run_in_threadpool(service_of(request).lti.keys.public_set)
    return JSONResponse(keys, headers={"Cache-Control": "max-age=300"})


async def deep_link(request: Request) -> Response:
    from ..pages import render

    service = service_of(request)
    form = await request.form(max_files=0, max_fields=4)
    asked = await run_in_threadpool(
        deep_linking.read_ticket, service.lti.keys, str(form.get("ticket", ""))
    )
    assignment = service.assignment(str(form.get("assignment", "")))
    item = deep_linking.LinkedAssignment(
        assignment.id,
        str(assignment.title),
        service.lti.points(assignment.id),
        base_url(service, request) + "/lti/launch",
    )
    token = await run_in_threadpool(deep_linking.response, service.lti.keys, asked, item)
    context = {"return_url": asked.return_url, "jwt": token, "assignment": assignment}
    response = render(request, "lti_return.html.j2", Identity(asked.student, "instructor"), context)
    # The answer is a form posted to the platform: this page alone may post there.
    response.headers["content-security-policy"] = (
        "default-src 'self'; style-src 'self' 'unsafe-inline'; "
        f"form-action 'self' {origin(asked.return_url)}; "
        f"frame-ancestors {service.lti.frame_ancestors()}; base-uri 'none'"
    )
    return response


def _target(accepted: Accepted) -> str:
    assignment = accepted.launch.custom.get("assignment")
    if assignment:
        return f"/assignments/{quote(assignment)}"
    return "/instructor" if accepted.who.instructor else "/assignments"


def _language(service: Service, locale: str | None) -> str | None:
    """The course's language for the launch's ``locale`` (``zh-CN``: ``zh``), if it has one."""
    if not locale:
        return None
    tag = locale.replace("_", "-").lower()
    for candidate in (tag, tag.split("-")[0]):
        if candidate in service.course.languages:
            return candidate
    return None


def _cookie(request: Request, response: Response, name: str, value: str, max_age: int) -> None:
    """A cookie a frame of another site still sends back: ``SameSite=None`` needs
    ``Secure``, so over plain HTTP (a test, a laptop) the cookie stays ``Lax``. Over HTTPS it
    is also ``Partitioned`` (CHIPS): a browser that blocks third-party cookies keeps it
    for frames in the LMS's pages only."""
    if request.url.scheme != "https":
        response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="lax")
        return
    # Written out: Python's cookies know ``Partitioned`` only from 3.14 (and Starlette asks
    # them). The values are URL-safe already (a token, a language code).
    response.headers.append(
        "set-cookie",
        f"{name}={value}; Max-Age={max_age}; Path=/; HttpOnly; Secure; SameSite=None; Partitioned",
    )


def _sign_in(request: Request, response: Response, secret: str) -> None:
    _cookie(request, response, SESSION_COOKIE, secret, SESSION_HOURS * 3600)


def _local(path: str) -> bool:
    return path.startswith("/") and not path.startswith("//") and "\\" not in path
