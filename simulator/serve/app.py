"""The web app of `sim serve` (Starlette): the page, its static files and a small JSON API.

Every request must carry the session's token (``?token=``, the ``X-Sim-Token`` header, or the
cookie the page gets when opened with the token); requests that change anything (POST) must carry
it in the query or the header, which another site's page cannot set, so a cookie alone never
starts a run or writes a file. Paths go through :class:`simulator.serve.paths.Folders`; one run
at a time per session (a second is refused with 409 until the first ends or is stopped), each
capped in trials and in time.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import secrets
import shutil
import tempfile
import threading
import zipfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from simulator.engine import default_threads
from simulator.output import safe_write
from simulator.scenario import Scenario, ScenarioError
from simulator.serve import form, model
from simulator.serve.jobs import Job
from simulator.serve.paths import Folders, PathRefused

STATIC = Path(__file__).parent / "static"
#: The files the page is made of (nothing else under static/ is served).
ASSETS = {"app.js": "text/javascript", "app.css": "text/css"}
COOKIE = "sim_token"
HEADER = "x-sim-token"
#: Default caps of a session (``sim serve --max-trials/--max-seconds``).
MAX_TRIALS = 10**10
MAX_SECONDS = 600.0
#: Finished jobs kept (their results, for the report download), newest last.
KEEP_JOBS = 8
#: The page's own policy: scripts, styles and connections to this server only.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)


@dataclass
class Session:
    """One server's state: its token, folders, caps and jobs."""

    folders: Folders
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    max_trials: int = MAX_TRIALS
    max_seconds: float = MAX_SECONDS
    threads: int = field(default_factory=default_threads)
    #: Scenario files opened first (the command line's), as shown.
    opened: list[str] = field(default_factory=list)
    jobs: dict[int, Job] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    reports: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="sim-serve-")))
    _exact: dict[str, dict[str, float]] = field(default_factory=dict)

    def running(self) -> Job | None:
        return next((j for j in self.jobs.values() if j.running), None)

    def exact(self, scenario: Scenario) -> dict[str, dict[str, float]]:
        """`sim exact`'s values of each variant, where the procedure knows them (cached)."""
        proc = scenario.procedure
        if proc.exact is None or scenario.sweep:
            return {}
        out = {}
        for name, params in scenario.variants.items():
            key = f"{proc.name} {params.model_dump_json()}"
            if key not in self._exact:
                self._exact[key] = {k: float(v) for k, v in proc.exact(params).items()}
            out[name] = self._exact[key]
        return out

    def start(self, scenario: Scenario) -> Job | None:
        """A new job for ``scenario``, or None while another one runs."""
        with self.lock:
            if self.running() is not None:
                return None
            number = max(self.jobs, default=0) + 1
            job = Job(
                number,
                scenario,
                threads=self.threads,
                max_seconds=self.max_seconds,
                exact=self.exact(scenario),
            )
            self.jobs[number] = job
            for old in sorted(self.jobs)[:-KEEP_JOBS]:
                if not self.jobs[old].running:
                    del self.jobs[old]
                    shutil.rmtree(self.reports / str(old), ignore_errors=True)
            job.start()
            return job

    def close(self) -> None:
        """Stop a running job and remove the session's report folders."""
        for job in self.jobs.values():
            job.stop("the server is shutting down")
        for job in self.jobs.values():
            job.join(30)
        shutil.rmtree(self.reports, ignore_errors=True)


class TokenGate:
    """Refuse every request without the session's token (403), and POSTs whose token came only
    from the cookie (a page of another site can make the browser send the cookie, not a header)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    def _given(self, scope: Scope) -> tuple[str | None, str | None]:
        request = Request(scope)
        explicit = request.headers.get(HEADER) or request.query_params.get("token")
        cookie = SimpleCookie(request.headers.get("cookie", ""))
        return explicit, cookie[COOKIE].value if COOKIE in cookie else None

    def _ok(self, value: str | None) -> bool:
        return value is not None and secrets.compare_digest(value.encode(), self.token.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        explicit, cookie = self._given(scope)
        allowed = self._ok(explicit) or (scope["method"] == "GET" and self._ok(cookie))
        if not allowed:
            text = (
                "sim serve: this request needs the session token (open the URL sim serve printed)"
            )
            await Response(text, status_code=403, media_type="text/plain")(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers={"Cache-Control": "no-store"})


def _refused(e: Exception, status: int = 403) -> JSONResponse:
    return _json({"error": str(e)}, status)


Handler = Callable[[Request], Awaitable[Response]]


def create_app(session: Session, allowed_hosts: list[str] | None = None) -> Starlette:
    """The Starlette app serving ``session``. ``allowed_hosts`` guards against DNS rebinding
    (another site's name pointed at 127.0.0.1): only these ``Host`` headers are answered."""

    async def page(request: Request) -> Response:
        response = FileResponse(STATIC / "index.html", media_type="text/html")
        response.headers["Content-Security-Policy"] = CSP
        response.headers["Cache-Control"] = "no-store"
        response.set_cookie(COOKIE, session.token, httponly=True, samesite="strict")
        return response

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return Response("not found", status_code=404)
        return FileResponse(STATIC / name, media_type=ASSETS[name])

    async def scenarios(request: Request) -> Response:
        files = await asyncio.to_thread(session.folders.scenarios)
        limits = {"max_trials": session.max_trials, "max_seconds": session.max_seconds}
        return _json({"files": files, "opened": session.opened, "limits": limits})

    async def scenario(request: Request) -> Response:
        given = request.query_params.get("path", "")
        try:
            real, text = session.folders.read(given)
        except PathRefused as e:
            return _refused(e)
        shown = session.folders.shown(real) if given.startswith("/") else given
        variant = request.query_params.get("variant") or form.EDIT_VARIANT
        data = await asyncio.to_thread(form.form, text, shown, variant)
        return _json({"path": shown, "source": text, **data})

    async def _draft(request: Request) -> tuple[form.Draft, str]:
        body = await request.json()
        if not isinstance(body, dict) or not isinstance(body.get("source"), str):
            raise ValueError("send the scenario's source text and the changes")
        draft = form.Draft.of(body, str(body.get("path") or "<scenario>"), body["source"])
        return draft, form.compose_text(draft)

    def _checked(draft: form.Draft, text: str, file: str) -> tuple[Scenario | None, list[Any]]:
        try:
            scenario = form.validate(text, file)
        except ScenarioError as e:
            return None, form.placed(e.problems, draft.variant)
        planned = scenario.trials * len(scenario.points)
        if planned > session.max_trials:
            message = (
                f"trials: {planned:,} trials per variant{' × sweep points' * bool(scenario.sweep)}"
                f" is over this session's cap of {session.max_trials:,} (sim serve --max-trials)"
            )
            return None, [{"field": "trials", "text": message, "message": message}]
        return scenario, []

    async def draft(request: Request) -> Response:
        try:
            d, text = await _draft(request)
        except ScenarioError as e:
            return _json({"text": None, "problems": form.placed(e.problems, "")})
        except ValueError as e:
            return _refused(e, 400)
        scenario, problems = await asyncio.to_thread(_checked, d, text, d.file)
        fragment = form.params_fragment(scenario, d.variant) if scenario else None
        return _json({"text": text, "problems": problems, "fragment": fragment})

    async def run(request: Request) -> Response:
        try:
            d, text = await _draft(request)
        except ScenarioError as e:
            return _json({"problems": form.placed(e.problems, "")}, 422)
        except ValueError as e:
            return _refused(e, 400)
        scenario, problems = await asyncio.to_thread(_checked, d, text, d.file)
        if scenario is None:
            return _json({"problems": problems}, 422)
        job = await asyncio.to_thread(session.start, scenario)
        if job is None:
            return _json({"error": "a run is going on in this session: stop it first"}, 409)
        return _json({"job": job.number, "text": text})

    def _job(request: Request) -> Job | None:
        try:
            return session.jobs.get(int(request.path_params["job"]))
        except ValueError:
            return None

    async def events(request: Request) -> Response:
        job = _job(request)
        if job is None:
            return _json({"error": "no such run"}, 404)
        start = request.headers.get("last-event-id") or request.query_params.get("from") or "-1"
        index = int(start) + 1 if start.lstrip("-").isdigit() else 0

        async def stream() -> AsyncIterator[str]:
            nonlocal index
            idle = 0.0
            while True:
                batch = job.events_from(index)
                for event in batch:
                    yield f"id: {index}\ndata: {json.dumps(event, allow_nan=False)}\n\n"
                    index += 1
                if batch and batch[-1]["type"] == "end":
                    return
                if await request.is_disconnected():
                    return
                idle = 0.0 if batch else idle + 0.05
                if idle >= 10:
                    idle = 0.0
                    yield ": still running\n\n"
                await asyncio.sleep(0.05)

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def stop(request: Request) -> Response:
        job = _job(request)
        if job is None:
            return _json({"error": "no such run"}, 404)
        job.stop()
        return _json({"job": job.number, "running": job.running})

    report_lock = threading.Lock()

    def _report_folder(job: Job) -> Path | None:
        if job.result is None:
            return None
        folder = session.reports / str(job.number) / "report"
        with report_lock:
            if not (folder / "report.html").exists():
                model.write_report(job.result, folder)
        return folder

    async def report_page(request: Request) -> Response:
        job = _job(request)
        folder = None if job is None else await asyncio.to_thread(_report_folder, job)
        if folder is None:
            return _json({"error": "no finished run"}, 404)
        response = FileResponse(folder / "report.html", media_type="text/html")
        response.headers["Content-Security-Policy"] = "default-src 'none'; img-src data:; "
        response.headers["Content-Security-Policy"] += "style-src 'unsafe-inline'"
        return response

    def _figures(folder: Path) -> list[str]:
        """The bare names of the report's figures: the only names ``figure`` serves."""
        return sorted(p.name for p in folder.glob("*.png") if p.is_file())

    async def figure_list(request: Request) -> Response:
        job = _job(request)
        folder = None if job is None else await asyncio.to_thread(_report_folder, job)
        if job is None or folder is None:
            return _json({"error": "no finished run"}, 404)
        return _json({"job": job.number, "figures": _figures(folder)})

    async def figure(request: Request) -> Response:
        job = _job(request)
        folder = None if job is None else await asyncio.to_thread(_report_folder, job)
        name = request.path_params["name"]
        # Only a figure the report folder holds, by its bare name: no path reaches past it.
        if folder is None or name not in _figures(folder):
            return _json({"error": "no such figure"}, 404)
        response = FileResponse(folder / name, media_type="image/png")
        response.headers["Cache-Control"] = "no-store"
        return response

    async def report_zip(request: Request) -> Response:
        job = _job(request)
        folder = None if job is None else await asyncio.to_thread(_report_folder, job)
        if job is None or folder is None:
            return _json({"error": "no finished run"}, 404)

        def pack() -> bytes:
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
                for path in sorted(folder.iterdir()):
                    if path.is_file() and not path.name.startswith("."):
                        z.write(path, f"{job.scenario.name}/{path.name}")
            return buffer.getvalue()

        data = await asyncio.to_thread(pack)
        disposition = f'attachment; filename="{job.scenario.name}-report.zip"'
        return Response(
            data, media_type="application/zip", headers={"Content-Disposition": disposition}
        )

    async def save(request: Request) -> Response:
        try:
            body = await request.json()
            d, text = await _draft(request)
        except ScenarioError as e:
            return _json({"problems": form.placed(e.problems, "")}, 422)
        except ValueError as e:
            return _refused(e, 400)
        target = str(body.get("target") or "")
        try:
            real = session.folders.resolve(target, must_exist=False)
            lexical = session.folders.base / target
            if lexical.is_symlink():
                raise PathRefused(f"{target}: a symlink; save to a plain file")
        except PathRefused as e:
            return _refused(e)
        scenario, problems = await asyncio.to_thread(_checked, d, text, target)
        if scenario is None:
            return _json({"problems": problems}, 422)
        overwrite = body.get("overwrite") is True
        try:
            await asyncio.to_thread(_write_scenario, real, text, overwrite)
        except FileExistsError:
            message = f"{target} exists; confirm to overwrite it"
            return _json({"exists": True, "error": message}, 409)
        return _json({"saved": session.folders.shown(real), "bytes": len(text.encode())})

    routes = [
        Route("/", page),
        Route("/static/{name}", asset),
        Route("/api/scenarios", scenarios),
        Route("/api/scenario", scenario),
        Route("/api/draft", draft, methods=["POST"]),
        Route("/api/run", run, methods=["POST"]),
        Route("/api/jobs/{job}/events", events),
        Route("/api/jobs/{job}/stop", stop, methods=["POST"]),
        Route("/api/jobs/{job}/report.html", report_page),
        Route("/api/jobs/{job}/report.zip", report_zip),
        Route("/api/jobs/{job}/figures", figure_list),
        Route("/api/jobs/{job}/figures/{name}", figure),
        Route("/api/save", save, methods=["POST"]),
    ]
    middleware = [Middleware(TokenGate, token=session.token)]
    if allowed_hosts is not None:
        middleware.insert(0, Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    return Starlette(routes=routes, middleware=middleware)


def _write_scenario(real: Path, text: str, overwrite: bool) -> None:
    """Write ``text`` whole (:func:`simulator.output.safe_write`); without ``overwrite`` the
    name is first taken with an exclusive create, so a file that exists, or appears meanwhile,
    is never replaced (FileExistsError)."""
    if not overwrite:
        fd = os.open(real, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        os.close(fd)
    try:
        safe_write(real, lambda f: f.write(text))
    except BaseException:
        if not overwrite:
            real.unlink(missing_ok=True)
        raise
