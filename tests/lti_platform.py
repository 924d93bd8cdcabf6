"""A test LMS: an LTI 1.3 platform of its own on loopback, which the tool under test talks
to as it would to Canvas or Moodle, and which records what it receives.

    with Platform() as lms:                       # uvicorn in a thread, on a free port
        lms.register_tool(tool_url, client_id)    # where the tool is, once it runs
        lms.users["ada"] = User("u-ada", ...)
        lms.launch_form("ada", assignment="ps1")  # the login initiation's fields
        lms.scores                                # every score posted, as received

It holds its own RSA keys (``rotate_key`` replaces them: the old one is gone from its
JWKS), answers the OIDC authorization request with an auto-posted ``id_token`` (a test
may spoil the next one: ``spoil``), checks the tool's client assertion against the
tool's JWKS at its token endpoint, keeps line items (their URLs carry a query string),
takes scores only with AGS's media types and a token of the right scope, pages the
memberships two at a time, and answers the statuses queued in ``failures`` first.

Asked to (``item_page_size``), it pages the line items as an LMS that ignores the
``resource_id`` filter does: every line item of the course, so many a page, with a
relative ``Link: <...>; rel="next"`` (or one to ``item_next_origin``, another site).
"""

from __future__ import annotations

import html
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
import uvicorn
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from service_helpers import free_port
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
CONTEXT = "course-101"
DEPLOYMENT = "deployment-1"
ITEM_QUERY = "type=graders"  # every line item URL carries it; scores must keep it


@dataclass
class User:
    """A person of the LMS course."""

    sub: str
    name: str
    email: str
    username: str
    roles: list[str] = field(default_factory=lambda: [LEARNER])
    locale: str = "en-US"


@dataclass
class Platform:
    """The test LMS (see the module's docstring)."""

    client_id: str = "graders-client"
    tool_url: str = ""
    port: int = field(default_factory=free_port)
    users: dict[str, User] = field(default_factory=dict)
    scores: list[dict[str, Any]] = field(default_factory=list)  # each: url, body, headers
    line_items: dict[int, dict[str, Any]] = field(default_factory=dict)
    item_context: dict[int, str] = field(default_factory=dict)  # line item -> its LMS course
    context: str = CONTEXT  # the LMS course the next launches come from
    line_item_posts: int = 0
    item_page_size: int = 0  # 0: the line items in one answer, filtered by resource_id
    item_next_origin: str | None = None  # the line items' next links point there instead
    item_pages: list[str] = field(default_factory=list)  # each line items page asked for
    token_requests: list[dict[str, Any]] = field(default_factory=list)
    deep_links: list[dict[str, Any]] = field(default_factory=list)
    member_pages: list[str] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)  # statuses to answer scores with first
    spoil: Callable[[dict[str, Any]], None] | None = None  # changes the next id_token's claims
    sign_with: RSAKey | None = None  # signs the next id_token with this key instead
    jwks_fetches: int = 0
    host: str = "127.0.0.1"  # "localhost": another site than the tool's 127.0.0.1

    def __post_init__(self) -> None:
        self.url = f"http://{self.host}:{self.port}"
        self.key = RSAKey.generate_key(2048, parameters={"kid": "lms-1", "alg": "RS256"})
        self.lock = threading.Lock()
        self.tokens: dict[str, str] = {}  # access token -> its scopes
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None

    # --- the test's side -------------------------------------------------------------------

    @property
    def issuer(self) -> str:
        return self.url

    def registration(self) -> list[str]:
        """`graders lti add-platform`'s options for this platform."""
        return [
            "--issuer", self.issuer,
            "--client-id", self.client_id,
            "--deployment-id", DEPLOYMENT,
            "--auth-url", f"{self.url}/auth?realm=test",
            "--token-url", f"{self.url}/token",
            "--jwks-url", f"{self.url}/jwks",
        ]  # fmt: skip

    def rotate_key(self) -> RSAKey:
        """A new signing key; the old one leaves the JWKS (as a real platform's does)."""
        self.key = RSAKey.generate_key(
            2048, parameters={"kid": f"lms-{secrets.token_hex(4)}", "alg": "RS256"}
        )
        return self.key

    def login_fields(
        self, who: str, assignment: str | None = "ps1", deep: bool = False
    ) -> dict[str, str]:
        """What the LMS sends the tool's login route to start a launch."""
        hint = json.dumps({"assignment": assignment, "deep": deep})
        return {
            "iss": self.issuer,
            "login_hint": who,
            "target_link_uri": f"{self.tool_url}/lti/launch",
            "lti_message_hint": hint,
            "client_id": self.client_id,
            "lti_deployment_id": DEPLOYMENT,
        }

    def add_learners(self, count: int) -> None:
        for n in range(count):
            name = f"learner{n:02d}"
            self.users[name] = User(f"u-{name}", f"Learner {n}", f"{name}@example.org", name)

    # --- serving ---------------------------------------------------------------------------

    def __enter__(self) -> Platform:
        config = uvicorn.Config(self.app(), host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "the test LMS did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.server is not None and self.thread is not None
        self.server.should_exit = True
        self.thread.join(30)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/jwks", self.jwks),
                Route("/auth", self.auth),
                Route("/token", self.token, methods=["POST"]),
                Route("/api/{ctx}/lineitems", self.list_items),
                Route("/api/{ctx}/lineitems", self.make_item, methods=["POST"]),
                Route("/api/{ctx}/lineitems/{n:int}/scores", self.score, methods=["POST"]),
                Route("/api/{ctx}/members", self.members),
                Route("/deep-link-return", self.deep_link_return, methods=["POST"]),
                Route("/course", self.course_page),
                Route("/start", self.start),
            ]
        )

    async def jwks(self, request: Request) -> Response:
        self.jwks_fetches += 1
        return JSONResponse({"keys": [self.key.as_dict(private=False)]})

    async def auth(self, request: Request) -> Response:
        """The OIDC authorization endpoint: the id_token, posted back to the tool."""
        q = request.query_params
        expected = {
            "scope": "openid",
            "response_type": "id_token",
            "response_mode": "form_post",
            "prompt": "none",
            "client_id": self.client_id,
            "redirect_uri": f"{self.tool_url}/lti/launch",
            "realm": "test",  # the authorization URL's own query, kept
        }
        wrong = {k: q.get(k) for k, v in expected.items() if q.get(k) != v}
        if wrong or not q.get("state") or not q.get("nonce"):
            return JSONResponse({"error": "invalid_request", "wrong": wrong}, 400)
        claims = self.claims(q["login_hint"], json.loads(q["lti_message_hint"]), q["nonce"])
        if self.spoil is not None:
            self.spoil(claims)
            self.spoil = None
        key, self.sign_with = self.sign_with or self.key, None
        token = jwt.encode({"alg": "RS256", "kid": key.kid}, claims, key)
        return auto_post(q["redirect_uri"], {"id_token": token, "state": q["state"]})

    def claims(self, who: str, hint: dict[str, Any], nonce: str) -> dict[str, Any]:
        user = self.users[who]
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.client_id,
            "azp": self.client_id,
            "sub": user.sub,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "name": user.name,
            "email": user.email,
            "preferred_username": user.username,
            LTI + "version": "1.3.0",
            LTI + "deployment_id": DEPLOYMENT,
            LTI + "target_link_uri": f"{self.tool_url}/lti/launch",
            LTI + "roles": user.roles,
            LTI + "context": {"id": self.context, "title": f"Autograd 101 ({self.context})"},
            LTI + "launch_presentation": {"locale": user.locale, "document_target": "iframe"},
            "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                "scope": [AGS + "lineitem", AGS + "score", AGS + "result.readonly"],
                "lineitems": f"{self.url}/api/{self.context}/lineitems",
            },
            "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
                "context_memberships_url": f"{self.url}/api/{self.context}/members",
                "service_versions": ["2.0"],
            },
        }
        if hint.get("deep"):
            claims[LTI + "message_type"] = "LtiDeepLinkingRequest"
            claims[DL + "deep_linking_settings"] = {
                "deep_link_return_url": f"{self.url}/deep-link-return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "data": "platform-state-42",
            }
        else:
            claims[LTI + "message_type"] = "LtiResourceLinkRequest"
            claims[LTI + "resource_link"] = {"id": f"link-{hint.get('assignment')}"}
            if hint.get("assignment"):
                claims[LTI + "custom"] = {"assignment": hint["assignment"]}
        return claims

    async def token(self, request: Request) -> Response:
        """Client credentials with a JWT assertion, checked against the tool's JWKS."""
        form = await request.form()
        record = {k: str(v) for k, v in form.items()}
        self.token_requests.append(record)
        if (
            record.get("grant_type") != "client_credentials"
            or record.get("client_assertion_type")
            != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        ):
            return JSONResponse({"error": "unsupported_grant_type"}, 400)
        async with httpx.AsyncClient() as client:
            published = (await client.get(f"{self.tool_url}/lti/jwks")).json()
        try:
            assertion = jwt.decode(
                record["client_assertion"], KeySet.import_key_set(published), algorithms=["RS256"]
            )
            jwt.JWTClaimsRegistry(
                iss={"essential": True, "value": self.client_id},
                sub={"essential": True, "value": self.client_id},
                aud={"essential": True, "value": f"{self.url}/token"},
                exp={"essential": True},
                jti={"essential": True},
            ).validate(assertion.claims)
        except Exception as exc:  # any flaw in the assertion: the client is not the tool
            return JSONResponse({"error": "invalid_client", "why": str(exc)}, 401)
        access = secrets.token_urlsafe(16)
        self.tokens[access] = record.get("scope", "")
        return JSONResponse(
            {
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": 3600,
                "scope": self.tokens[access],
            }
        )

    def _granted(self, request: Request, scope: str) -> bool:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return scheme == "Bearer" and scope in self.tokens.get(token, "").split()

    async def list_items(self, request: Request) -> Response:
        if not self._granted(request, AGS + "lineitem"):
            return JSONResponse({"error": "forbidden"}, 403)
        if request.headers.get("accept") != "application/vnd.ims.lis.v2.lineitemcontainer+json":
            return JSONResponse({"error": "not acceptable"}, 406)
        self.item_pages.append(str(request.url))
        ctx = request.path_params["ctx"]
        found = [
            item
            for n, item in sorted(self.line_items.items())
            if self.item_context.get(n, CONTEXT) == ctx
        ]
        media_type = "application/vnd.ims.lis.v2.lineitemcontainer+json"
        if not self.item_page_size:
            wanted = request.query_params.get("resource_id")
            found = [item for item in found if wanted in (None, item["resourceId"])]
            return JSONResponse(found, media_type=media_type)
        page, size = int(request.query_params.get("page", "0")), self.item_page_size
        headers = {}
        if (page + 1) * size < len(found):
            elsewhere = self.item_next_origin or ""  # "": relative, on this origin (RFC 8288)
            headers["Link"] = f'<{elsewhere}/api/{ctx}/lineitems?page={page + 1}>; rel="next"'
        listed = found[page * size : (page + 1) * size]
        return JSONResponse(listed, headers=headers, media_type=media_type)

    async def make_item(self, request: Request) -> Response:
        if not self._granted(request, AGS + "lineitem"):
            return JSONResponse({"error": "forbidden"}, 403)
        if request.headers.get("content-type") != "application/vnd.ims.lis.v2.lineitem+json":
            return JSONResponse({"error": "unsupported media type"}, 415)
        body = await request.json()
        with self.lock:
            self.line_item_posts += 1
            n = len(self.line_items) + 1
            ctx = request.path_params["ctx"]
            item = body | {"id": f"{self.url}/api/{ctx}/lineitems/{n}?{ITEM_QUERY}"}
            self.line_items[n] = item
            self.item_context[n] = ctx
        return JSONResponse(item, 201, media_type="application/vnd.ims.lis.v2.lineitem+json")

    async def score(self, request: Request) -> Response:
        if not self._granted(request, AGS + "score"):
            return JSONResponse({"error": "forbidden"}, 403)
        if request.headers.get("content-type") != "application/vnd.ims.lis.v1.score+json":
            return JSONResponse({"error": "unsupported media type"}, 415)
        n = request.path_params["n"]
        if (
            request.url.query != ITEM_QUERY
            or n not in self.line_items
            or self.item_context.get(n, CONTEXT) != request.path_params["ctx"]
        ):
            return JSONResponse({"error": "no such line item"}, 404)
        if self.failures:
            status = self.failures.pop(0)
            return JSONResponse({"error": "try later"}, status, headers={"Retry-After": "0"})
        body = await request.json()
        item = self.line_items[request.path_params["n"]]
        if body.get("scoreGiven", 0) > body.get("scoreMaximum", item["scoreMaximum"]):
            return JSONResponse({"error": "scoreGiven above scoreMaximum"}, 400)
        self.scores.append({"item": request.path_params["n"], "body": body})
        return Response(status_code=204)

    async def members(self, request: Request) -> Response:
        """The memberships, two per page, with a ``Link: rel="next"`` to the next."""
        if not self._granted(
            request, "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
        ):
            return JSONResponse({"error": "forbidden"}, 403)
        if (
            request.headers.get("accept")
            != "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
        ):
            return JSONResponse({"error": "not acceptable"}, 406)
        self.member_pages.append(str(request.url))
        page = int(request.query_params.get("page", "0"))
        users = sorted(self.users.values(), key=lambda u: u.sub)
        members = [
            {
                "user_id": u.sub,
                "name": u.name,
                "email": u.email,
                "roles": u.roles,
                "status": "Active",
            }
            for u in users[page * 2 : page * 2 + 2]
        ]
        headers = {}
        if (page + 1) * 2 < len(users):
            next_page = f"{self.url}/api/{request.path_params['ctx']}/members?page={page + 1}"
            headers["Link"] = f'<{next_page}>; rel="next"'
        context = {"id": request.path_params["ctx"]}
        body = {"id": str(request.url), "context": context, "members": members}
        return JSONResponse(body, headers=headers)

    async def deep_link_return(self, request: Request) -> Response:
        """The deep-linking answer, checked against the tool's JWKS."""
        form = await request.form()
        async with httpx.AsyncClient() as client:
            published = (await client.get(f"{self.tool_url}/lti/jwks")).json()
        token = jwt.decode(str(form["JWT"]), KeySet.import_key_set(published), algorithms=["RS256"])
        jwt.JWTClaimsRegistry(
            iss={"essential": True, "value": self.client_id},
            aud={"essential": True, "value": self.issuer},
            exp={"essential": True},
            nonce={"essential": True},
        ).validate(token.claims)
        self.deep_links.append(dict(token.claims))
        return HTMLResponse("<!DOCTYPE html><title>Added</title><p id='added'>Added.</p>")

    async def course_page(self, request: Request) -> Response:
        """The LMS's course page: the tool in an iframe, and a link to it in a new window."""
        who = request.query_params.get("as", "ada")
        frame = f"/start?{urlencode({'as': who})}"
        return HTMLResponse(
            "<!DOCTYPE html><html lang='en'><title>Autograd 101</title><main>"
            "<h1>Autograd 101</h1>"
            f"<iframe id='tool' title='graders' src='{html.escape(frame)}' width='900' height='700'></iframe>"
            f"<p><a id='new-window' href='{html.escape(frame)}' target='_blank'>ps1 in a new window</a></p>"
            "</main></html>"
        )

    async def start(self, request: Request) -> Response:
        """Third-party initiated login: a form posted to the tool's login route."""
        who = request.query_params.get("as", "ada")
        deep = request.query_params.get("deep") == "1"  # an instructor adding a link
        fields = self.login_fields(who, None if deep else "ps1", deep)
        return auto_post(f"{self.tool_url}/lti/login", fields)


def auto_post(url: str, fields: dict[str, str]) -> HTMLResponse:
    """A page that posts ``fields`` to ``url`` at once (as an LMS does)."""
    inputs = "".join(
        f"<input type='hidden' name='{html.escape(k)}' value='{html.escape(v)}'>"
        for k, v in fields.items()
    )
    return HTMLResponse(
        "<!DOCTYPE html><html lang='en'><title>Launching</title><body>"
        f"<form id='post' method='post' action='{html.escape(url)}'>{inputs}"
        "<button type='submit'>Continue</button></form>"
        "<script>document.getElementById('post').submit();</script></body></html>"
    )


def form_of(page: str) -> tuple[str, dict[str, str]]:
    """The action and hidden fields of an auto-posting page (a test posts it itself)."""
    import re

    action = html.unescape(re.search(r"action='([^']*)'", page)[1])  # type: ignore[index]
    fields = {
        html.unescape(k): html.unescape(v)
        for k, v in re.findall(r"name='([^']*)' value='([^']*)'", page)
    }
    return action, fields


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")
