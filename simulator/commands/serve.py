"""Body of ``sim serve``: the browser workbench on 127.0.0.1 (docs/serve.md), with a per-session
token in the URL it prints, serving scenario files under the folders it was started on."""

from __future__ import annotations

import ipaddress
import threading
from pathlib import Path
from typing import Any

from simulator.commands.common import EXIT_INVALID, command, say

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _warm(paths: list[Path]) -> None:
    """Load the opened scenarios' kernels and the statistics modules before the first run, so
    the first estimate comes within a second (a run of a few trials, its result thrown away)."""
    from simulator.runner import run_scenario
    from simulator.scenario import ScenarioError, load
    from simulator.serve import model

    for path in paths:
        try:
            scenario = load(path)
        except ScenarioError:
            continue
        model.view(run_scenario(scenario, trials=64, threads=1))


@command
def serve(
    scenarios: list[Path] | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    root: list[Path] | None = None,
    max_trials: int | None = None,
    max_seconds: float | None = None,
    threads: int | None = None,
    out: Any,
    err: Any,
) -> int:
    """Start the web app and serve until Ctrl-C; the exit code (2 for bad options or files)."""
    try:
        import uvicorn  # noqa: F401  (the serve extra: said here, before anything starts)

        from simulator.serve import lifecycle
        from simulator.serve.app import MAX_SECONDS, MAX_TRIALS, Session, create_app
        from simulator.serve.paths import Folders, PathRefused
    except ImportError as e:
        say(err, f"sim serve needs the serve extra: pip install 'simulator[serve]' ({e})")
        return EXIT_INVALID
    files = list(scenarios or [])
    for path in files:
        if not path.is_file():
            say(err, f"sim serve: {path}: no such scenario file")
            return EXIT_INVALID
    if root:
        roots = list(root)
    else:
        roots = [p.resolve().parent for p in files]
        if Path("scenarios").is_dir():
            roots.append(Path("scenarios"))
        roots = roots or [Path.cwd()]
    for folder in roots:
        if not Path(folder).is_dir():
            say(err, f"sim serve: --root {folder}: not a folder")
            return EXIT_INVALID
    folders = Folders.of(roots)
    try:
        opened = [folders.shown(folders.resolve(str(p.resolve()))) for p in files]
    except PathRefused as e:
        say(err, f"sim serve: {e} (add its folder with --root)")
        return EXIT_INVALID
    if _loopback(host):
        allowed = [*LOOPBACK, "[::1]"]
    else:
        allowed = ["*"]
        say(
            err,
            f"warning: serving on {host}, not only this machine: anyone who can reach it and "
            "has the URL's token can run scenarios and write scenario files here",
        )
    try:
        sock = lifecycle.listening(host, port)
    except OSError as e:
        say(err, f"sim serve: cannot listen on {host}:{port}: {e.strerror or e} (try --port 0)")
        return EXIT_INVALID
    session = Session(
        folders,
        max_trials=max_trials or MAX_TRIALS,
        max_seconds=max_seconds or MAX_SECONDS,
        opened=opened,
    )
    if threads:
        session.threads = threads

    def stop_runs() -> None:
        for job in list(session.jobs.values()):
            job.stop("the server is shutting down")

    try:  # from here on, however it ends, the session's report folder goes
        port = sock.getsockname()[1]
        shown_host = f"[{host}]" if ":" in host else host
        threading.Thread(target=_warm, args=(files,), daemon=True, name="sim-serve-warm").start()
        # The socket listens already: whoever reads the URL can connect at once.
        say(out, "sim serve: a designer's workbench for these folders:")
        for folder in folders.roots:
            say(out, f"  {folder}")
        url = f"http://{shown_host}:{port}/?token={session.token}"
        say(out, f"Open this URL (it holds the session's token):\n  {url}")
        say(out, "Ctrl-C stops the server.")
        _flush(out)
        received = lifecycle.serve(
            create_app(session, allowed_hosts=allowed), sock, stop_runs, session.reports
        )
    finally:
        session.close(wait=lifecycle.GRACE)
        sock.close()
    if received is None:
        return 0
    lifecycle.said(received)
    return lifecycle.end(128 + received)


def _flush(console: Any) -> None:
    file = getattr(console, "file", None)
    if file is not None:
        file.flush()
