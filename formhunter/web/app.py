"""The aiohttp application behind ``formhunter serve`` and ``formhunter crawl --ui``.

Pages (each with a JSON twin under ``/api/``; filters are query parameters):
``/`` runs; ``/runs/{id}`` one run (the live one updates every second through
``/api/runs/{id}``); ``/forms`` the forms (run, domain, relevant, site,
min_score, labelled, limit, offset); ``/forms/{id}`` one form with its fields,
page, path from the seed, a sandboxed rendering and its labels; ``/labels`` the
labels and the forms the domain model is least sure of; ``/rejudgings`` the
re-judgings (``formhunter rejudge``) and ``/rejudgings/{id}`` what one changed.
``/forms`` shows the directory (one row per distinct form), ``all_rows=yes`` the log.

Safety: the server listens on 127.0.0.1 unless told otherwise and answers only
requests addressed to the host it listens on (no DNS rebinding). Changing data
(a label: ``POST /forms/{id}/label`` or ``/api/forms/{id}/label``) needs the token
printed at start-up, in the ``X-Formhunter-Token`` header or a ``token`` form
field (compared in constant time); opening the page with ``?token=...`` keeps it
in a same-site, HTTP-only cookie so that the page's label form carries it.
Every response has a Content-Security-Policy (scripts only from this server),
``X-Frame-Options: DENY`` and ``nosniff``; templates escape everything, and a
form's HTML is shown only in an ``<iframe sandbox="">`` (``sandbox.py``).
"""

from __future__ import annotations

import hmac
import logging
import math
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

import jinja2
from aiohttp import web

from formhunter.exceptions import FormhunterError, UsageError
from formhunter.labels import add_label, read_labels
from formhunter.web import queries
from formhunter.web.live import LiveRun
from formhunter.web.sandbox import srcdoc
from formhunter.web.store import Store

log = logging.getLogger(__name__)

CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'self'; "
       "base-uri 'none'; frame-ancestors 'none'")  # fmt: skip
TOKEN_HEADER = "X-Formhunter-Token"
TOKEN_COOKIE = "formhunter_token"
#: suggestions of the next forms to label on /labels
SUGGESTIONS = 15

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class WebSettings:
    """What the app serves: ``store``, the label ``token`` (random by default), the
    ``live`` run of ``crawl --ui`` (None for ``serve``), the hosts it answers to."""

    store: Store
    token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    live: LiveRun | None = None
    hosts: frozenset[str] = frozenset()
    models_dir: str | None = None
    #: the domain model's name (``classifiers.persist.model_path``); None: the newest
    model: str | None = None
    #: the domain model of the suggestions, with the directory and mtime it was loaded from
    model_cache: dict[str, Any] = field(default_factory=dict)


APP_KEY = web.AppKey("formhunter", WebSettings)
ENV_KEY = web.AppKey("jinja", jinja2.Environment)


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.3f}".rstrip("0").rstrip(".") or "0"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return str(value)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    return str(value)


def _dumps(obj: Any) -> str:
    import json

    return json.dumps(obj, default=_json_default, ensure_ascii=False)


def polyline(curve: list[list[int]], width: int = 600, height: int = 220) -> dict[str, Any]:
    """The SVG polyline of a harvest curve (pages on x, relevant forms on y)."""
    xmax = max([p[0] for p in curve] + [1])
    ymax = max([p[1] for p in curve] + [1])
    sx, sy = (width - 50) / xmax, (height - 40) / ymax
    pts = " ".join(f"{40 + p[0] * sx:.1f},{height - 25 - p[1] * sy:.1f}" for p in curve)
    return {"points": pts, "xmax": xmax, "ymax": ymax, "width": width, "height": height}


# -- middleware -------------------------------------------------------------------


@web.middleware
async def safety(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Host check, error pages, and the security headers on every response."""
    cfg = request.app[APP_KEY]
    try:
        if cfg.hosts and request.host not in cfg.hosts:
            raise web.HTTPMisdirectedRequest(text="unknown host")
        response = await handler(request)
    except web.HTTPException as exc:
        if exc.status >= 400 and request.path.startswith("/api/"):
            response = _error(request, exc.status, exc.text or exc.reason)
        else:
            _secure(exc.headers)
            raise
    except (UsageError, LookupError) as exc:
        response = _error(request, 404 if isinstance(exc, LookupError) else 400, str(exc))
    except FormhunterError as exc:
        response = _error(request, 500, str(exc))
    except Exception:
        log.exception("%s %s failed", request.method, request.path)
        response = _error(request, 500, "internal error (see the server's log)")
    _secure(response.headers)
    return response


def _secure(headers: Any) -> None:
    headers["Content-Security-Policy"] = CSP
    headers["X-Frame-Options"] = "DENY"
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    headers.setdefault("Cache-Control", "no-store")


def _error(request: web.Request, status: int, message: str) -> web.Response:
    if request.path.startswith("/api/"):
        return web.json_response({"error": message}, status=status, dumps=_dumps)
    html = _env(request).get_template("error.html").render(status=status, message=message,
                                                           **_common(request))  # fmt: skip
    return web.Response(text=html, status=status, content_type="text/html")


# -- helpers ------------------------------------------------------------------------


def _env(request: web.Request) -> jinja2.Environment:
    return request.app[ENV_KEY]


def _token_ok(request: web.Request, given: str | None) -> bool:
    token = request.app[APP_KEY].token
    return bool(given) and hmac.compare_digest(str(given).encode(), token.encode())


def _page_token(request: web.Request) -> str:
    """The token for the page's label form, when the browser proved it knows it."""
    for given in (request.query.get("token"), request.cookies.get(TOKEN_COOKIE)):
        if given and _token_ok(request, given):
            return request.app[APP_KEY].token
    return ""


def _common(request: web.Request) -> dict[str, Any]:
    cfg = request.app[APP_KEY]
    live = cfg.live.snapshot() if cfg.live is not None else None
    return {"db": str(cfg.store.path), "live": live, "token": _page_token(request),
            "path": request.path, "path_qs": _without_token(request)}  # fmt: skip


def _without_token(request: web.Request) -> str:
    query = [(k, v) for k, v in request.query.items() if k != "token"]
    return request.path + (f"?{urlencode(query)}" if query else "")


def respond(request: web.Request, template: str, data: dict[str, Any]) -> web.StreamResponse:
    """``data`` as JSON under /api/, else rendered into ``template``."""
    if request.path.startswith("/api/"):
        return web.json_response(data, dumps=_dumps)
    html = _env(request).get_template(template).render(data=data, **_common(request))
    response = web.Response(text=html, content_type="text/html")
    given = request.query.get("token")
    if given and _token_ok(request, given):
        response.set_cookie(TOKEN_COOKIE, given, httponly=True, samesite="Strict", path="/")
    return response


def _int(request: web.Request, name: str) -> int:
    try:
        value = int(request.match_info[name])
    except ValueError:
        raise UsageError(f"{name} must be a number") from None
    if not 0 <= value <= queries.INT64_MAX:
        raise UsageError(f"{name} must be a number from 0 to 2^63-1")
    return value


# -- views --------------------------------------------------------------------------


async def runs_view(request: web.Request) -> web.StreamResponse:
    with request.app[APP_KEY].store.read() as con:
        data = {"runs": queries.runs(con)}
    return respond(request, "runs.html", data)


async def run_view(request: web.Request) -> web.StreamResponse:
    run_id = _int(request, "run_id")
    cfg = request.app[APP_KEY]
    with cfg.store.read() as con:
        data = queries.run_detail(con, run_id)
    data["live"] = None
    if cfg.live is not None and cfg.live.run_id == run_id:
        live = cfg.live.snapshot()
        data["live"] = live
        data["curve"] = live["curve"]
        data["pages_per_second"] = live["pages_per_second"]
    if not request.path.startswith("/api/"):
        data["plot"] = polyline(data["curve"])
    return respond(request, "run.html", data)


async def live_view(request: web.Request) -> web.StreamResponse:
    live = request.app[APP_KEY].live
    if live is None or not live.run_id:
        if request.path.startswith("/api/"):
            return web.json_response({"state": "none" if live is None else live.state})
        raise web.HTTPFound("/")
    if request.path.startswith("/api/"):
        return web.json_response(live.snapshot())
    raise web.HTTPFound(f"/runs/{live.run_id}")


async def forms_view(request: web.Request) -> web.StreamResponse:
    filters = queries.parse_filters(dict(request.query))
    with request.app[APP_KEY].store.read() as con:
        data = queries.forms(con, filters)
        sql = "SELECT DISTINCT domain FROM forms WHERE domain <> '' ORDER BY 1"
        data["domains"] = [r[0] for r in con.execute(sql).fetchall()]
    data["filters"] = {k: v for k, v in filters.items() if v is not None}
    if not request.path.startswith("/api/"):
        flags = {k: "any" if filters[k] is None else ("yes" if filters[k] else "no")
                 for k in ("relevant", "labelled")}  # fmt: skip
        data["flags"] = flags
        keep = {k: v for k, v in data["filters"].items() if k not in ("offset", "relevant",
                                                                       "labelled")}
        data["query"] = urlencode({**keep, **{k: v for k, v in flags.items() if v != "any"}})
    return respond(request, "forms.html", data)


async def form_view(request: web.Request) -> web.StreamResponse:
    form_id = _int(request, "form_id")
    with request.app[APP_KEY].store.read() as con:
        data = queries.form_detail(con, form_id)
        data["domain_choices"] = queries.domain_choices(con)
    if request.path.startswith("/api/"):
        data["form"].pop("html", None)
    else:
        data["srcdoc"] = srcdoc(data["form"].get("html") or "")
    return respond(request, "form.html", data)


async def label_view(request: web.Request) -> web.StreamResponse:
    form_id = _int(request, "form_id")
    api = request.path.startswith("/api/")
    body: dict[str, Any]
    if api and request.content_type == "application/json":
        try:
            data = await request.json()
        except (ValueError, RecursionError):
            raise UsageError("the body is not JSON") from None
        if not isinstance(data, dict):
            raise UsageError("the body must be a JSON object ({\"verdict\": ...})")
        body = data
    else:
        body = dict(await request.post())
    given = request.headers.get(TOKEN_HEADER) or body.get("token")
    if not _token_ok(request, given):
        raise web.HTTPForbidden(text="a label needs the token printed when the server started")
    verdict = str(body.get("verdict", "")).lower()
    if verdict not in ("right", "wrong", "true", "false"):
        raise UsageError("verdict must be right or wrong")
    ok = verdict in ("right", "true")
    with request.app[APP_KEY].store.write() as con:
        label = add_label(con, form_id, verdict_ok=ok,
                          true_domain=str(body.get("true_domain", "")),
                          note=str(body.get("note", ""))[:2000])  # fmt: skip
    if api:
        return web.json_response({"label": label}, dumps=_dumps)
    raise web.HTTPSeeOther(f"/forms/{form_id}#label")


def suggestions(cfg: WebSettings, con: Any) -> tuple[list[dict[str, Any]], str]:
    """The forms the domain model is least sure of, or ([], why not)."""
    from classifiers.persist import MODEL_FILE, load_model, model_path
    from formhunter.trainers.labels import least_sure, unlabelled_forms

    try:
        directory = model_path("domain", cfg.models_dir, cfg.model)
        key = f"{directory}:{(directory / MODEL_FILE).stat().st_mtime_ns}"
        if cfg.model_cache.get("key") != key:
            cfg.model_cache.update(key=key, model=load_model(directory, "domain")[0])
    except (FormhunterError, OSError) as exc:
        return [], f"no domain model for suggestions: {exc}"
    model = cfg.model_cache["model"]
    return least_sure(model, unlabelled_forms(con, 1000), SUGGESTIONS), ""


async def labels_view(request: web.Request) -> web.StreamResponse:
    cfg = request.app[APP_KEY]
    with cfg.store.read() as con:
        labels = read_labels(con)
        suggested, why = suggestions(cfg, con)
    n_wrong = sum(1 for lab in labels if not lab["verdict_ok"])
    data = {"labels": labels, "n_wrong": n_wrong, "suggestions": suggested,
            "suggestions_note": why}  # fmt: skip
    return respond(request, "labels.html", data)


async def rejudgings_view(request: web.Request) -> web.StreamResponse:
    from formhunter.rejudge import rejudgings

    with request.app[APP_KEY].store.read() as con:
        data = {"rejudgings": rejudgings(con)}
    return respond(request, "rejudgings.html", data)


async def rejudging_view(request: web.Request) -> web.StreamResponse:
    from formhunter.rejudge import CHANGES, changes_of

    rejudge_id = _int(request, "rejudge_id")
    with request.app[APP_KEY].store.read() as con:
        data = changes_of(con, rejudge_id)
    data["kinds"] = list(CHANGES)
    return respond(request, "rejudging.html", data)


def make_app(settings: WebSettings) -> web.Application:
    """The web application over ``settings.store``."""
    app = web.Application(middlewares=[safety], client_max_size=64 * 1024)
    app[APP_KEY] = settings
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("formhunter.web", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined,
    )  # fmt: skip
    env.filters["fmt"] = _fmt
    app[ENV_KEY] = env
    from pathlib import Path

    static = Path(__file__).parent / "static"
    for prefix in ("", "/api"):
        app.router.add_get(f"{prefix}/runs/{{run_id}}", run_view)
        app.router.add_get(f"{prefix}/live", live_view)
        app.router.add_get(f"{prefix}/forms", forms_view)
        app.router.add_get(f"{prefix}/forms/{{form_id}}", form_view)
        app.router.add_post(f"{prefix}/forms/{{form_id}}/label", label_view)
        app.router.add_get(f"{prefix}/labels", labels_view)
        app.router.add_get(f"{prefix}/rejudgings", rejudgings_view)
        app.router.add_get(f"{prefix}/rejudgings/{{rejudge_id}}", rejudging_view)
    app.router.add_get("/", runs_view)
    app.router.add_get("/api/runs", runs_view)
    app.router.add_static("/static/", static)
    return app


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The Host headers a server on ``host:port`` answers (loopback names for loopback)."""
    names = {host}
    if host in ("127.0.0.1", "localhost", "::1"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    return frozenset(f"{n}:{port}" for n in names)


async def start_ui(settings: WebSettings, host: str, port: int) -> tuple[web.AppRunner, str]:
    """Serve the app on ``host:port`` in the running event loop; (runner, URL with token).
    ``port`` 0 picks a free port."""
    runner = web.AppRunner(make_app(settings), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    if port == 0 and runner.addresses:
        port = int(runner.addresses[0][1])
    if not settings.hosts:
        settings.hosts = allowed_hosts(host, port)
    shown = f"[{host}]" if ":" in host else host
    return runner, f"http://{shown}:{port}/?token={settings.token}"
