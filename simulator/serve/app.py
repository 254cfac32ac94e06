"""The web app of `sim serve` (Starlette): the page, its static files and a small JSON API.

Every request must carry the session's token (``?token=``, the ``X-Sim-Token`` header, or the
cookie the page gets when opened with the token); requests that change anything (POST) must carry
it in the query or the header, which another site's page cannot set, so a cookie alone never
starts a run or writes a file (:mod:`simulator.serve.guard`, which also bounds bodies and JSON).
Paths go through :class:`simulator.serve.paths.Folders`, and the Python files a posted scenario
names through :mod:`simulator.serve.references`, before the scenario loader imports anything;
one run at a time per session (a second is refused with 409 until the first ends or is stopped),
each capped in trials and in time, its exact values computed beside it
(:mod:`simulator.serve.exact`).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import secrets
import shutil
import threading
import time
import zipfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from simulator.engine import default_threads
from simulator.limits import MAX_BYTES
from simulator.output import safe_write
from simulator.scenario import Scenario, ScenarioError
from simulator.serve import form, model
from simulator.serve.exact import EXACT_SECONDS, ExactCache
from simulator.serve.guard import COOKIE, Refused, TokenGate, body_json, number, source_of
from simulator.serve.jobs import Job
from simulator.serve.lifecycle import report_folder
from simulator.serve.paths import Folders, PathRefused
from simulator.serve.references import check_references

STATIC = Path(__file__).parent / "static"
#: The files the page is made of (nothing else under static/ is served).
ASSETS = {"app.js": "text/javascript", "app.css": "text/css"}
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
    reports: Path = field(default_factory=report_folder)
    exact: ExactCache = field(default_factory=ExactCache)

    def running(self) -> Job | None:
        return next((j for j in self.jobs.values() if j.running), None)

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
                exact=self.exact.run(scenario, min(EXACT_SECONDS, self.max_seconds)),
            )
            self.jobs[number] = job
            for old in sorted(self.jobs)[:-KEEP_JOBS]:
                if not self.jobs[old].running:
                    del self.jobs[old]
                    shutil.rmtree(self.reports / str(old), ignore_errors=True)
            job.start()
            return job

    def close(self, wait: float = 30) -> None:
        """Stop a running job, wait for it at most ``wait`` seconds in all, and remove the
        session's report folders."""
        for job in list(self.jobs.values()):
            job.stop("the server is shutting down")
        deadline = time.monotonic() + wait
        for job in list(self.jobs.values()):
            job.join(max(0.0, deadline - time.monotonic()))
        shutil.rmtree(self.reports, ignore_errors=True)


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

    def _guarded(text: str, file: str) -> None:
        """Refuse (PathRefused) a scenario naming a Python file outside the served folders,
        before the scenario loader imports it."""
        try:
            raw = form.raw_values(text, file)
        except ScenarioError:
            return  # the loader stops at the same place, before importing anything
        check_references(raw, Path(os.path.abspath(file)).parent, session.folders)

    def _shown_form(given: str, variant: str) -> dict[str, Any]:
        real, text = session.folders.read(given)
        _, file = session.folders.scenario_file(given)
        shown = session.folders.shown(real) if given.startswith("/") else given
        _guarded(text, file)
        return {"path": shown, "source": text, **form.form(text, shown, variant)}

    async def scenario(request: Request) -> Response:
        given = request.query_params.get("path", "")
        variant = request.query_params.get("variant") or form.EDIT_VARIANT
        try:
            return _json(await asyncio.to_thread(_shown_form, given, variant))
        except PathRefused as e:
            return _refused(e)

    async def _draft(request: Request) -> tuple[dict[str, Any], form.Draft, str]:
        """The body, the draft and its composed text (a path inside the served folders).

        Raises:
            Refused: a body that is not such a draft; PathRefused: its path;
            ScenarioError: a source the loader refuses.
        """
        body = await body_json(request)
        source = source_of(body)
        given = body.get("path")
        if not isinstance(given, str):
            raise Refused(400, "path: send the scenario file's path inside the served folders")
        _, file = session.folders.scenario_file(given)
        try:
            draft = form.Draft.of(body, file, source)
        except ValueError as e:
            raise Refused(400, str(e)) from None
        text = await asyncio.to_thread(form.compose_text, draft)
        if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
            raise Refused(413, f"the scenario is larger than the {MAX_BYTES >> 20} MiB limit")
        return body, draft, text

    def _checked(draft: form.Draft, text: str, file: str) -> tuple[Scenario | None, list[Any]]:
        _guarded(text, file)
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
            _, d, text = await _draft(request)
            scenario, problems = await asyncio.to_thread(_checked, d, text, d.file)
        except ScenarioError as e:
            return _json({"text": None, "problems": form.placed(e.problems, "")})
        except Refused as e:
            return e.response()
        except PathRefused as e:
            return _refused(e)
        fragment = form.params_fragment(scenario, d.variant) if scenario else None
        return _json({"text": text, "problems": problems, "fragment": fragment})

    async def run(request: Request) -> Response:
        try:
            _, d, text = await _draft(request)
            scenario, problems = await asyncio.to_thread(_checked, d, text, d.file)
        except ScenarioError as e:
            return _json({"problems": form.placed(e.problems, "")}, 422)
        except Refused as e:
            return e.response()
        except PathRefused as e:
            return _refused(e)
        if scenario is None:
            return _json({"problems": problems}, 422)
        job = await asyncio.to_thread(session.start, scenario)
        if job is None:
            return _json({"error": "a run is going on in this session: stop it first"}, 409)
        return _json({"job": job.number, "text": text})

    def _job(request: Request) -> Job | None:
        number_ = number(request.path_params["job"])
        return None if number_ is None else session.jobs.get(number_)

    async def events(request: Request) -> Response:
        job = _job(request)
        if job is None:
            return _json({"error": "no such run"}, 404)
        start = request.headers.get("last-event-id") or request.query_params.get("from")
        seen = number(start)
        if start is not None and seen is None:
            return _json({"error": "from: an event's number (a whole number) or nothing"}, 400)
        index = max(0, (seen if seen is not None else -1) + 1)

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
                if not batch and not job.running and not job.events_from(index):
                    return  # asked from past the end of a run that has ended: nothing comes
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
            body, d, text = await _draft(request)
            target = body.get("target")
            if not isinstance(target, str):
                raise Refused(400, "target: the scenario file to write, inside the served folders")
            real = await asyncio.to_thread(session.folders.save_target, target)
            _, file = session.folders.scenario_file(target)
            scenario, problems = await asyncio.to_thread(_checked, d, text, file)
        except ScenarioError as e:
            return _json({"problems": form.placed(e.problems, "")}, 422)
        except Refused as e:
            return e.response()
        except PathRefused as e:
            return _refused(e)
        if scenario is None:
            return _json({"problems": problems}, 422)
        overwrite = body.get("overwrite") is True
        try:
            await asyncio.to_thread(_write_scenario, real, text, overwrite)
        except FileExistsError:
            message = f"{target} exists; confirm to overwrite it"
            return _json({"exists": True, "error": message}, 409)
        return _json({"saved": session.folders.shown(real), "bytes": len(text.encode())})

    async def favicon(request: Request) -> Response:
        return Response(status_code=204, headers={"Cache-Control": "max-age=86400"})

    routes = [
        Route("/", page),
        Route("/static/{name}", asset),
        Route("/favicon.ico", favicon),
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
