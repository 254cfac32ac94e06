"""`sim serve` against a hostile request (issue 47, items 1-8): nothing outside the served folders
is read or imported, Save replaces only scenario files, other apps' cookies are harmless, bodies
are bounded, bad numbers are a 400 with a message, a designer's exact values never hold the
session, the server stops on a signal whatever is busy, and prints its URL only once it listens.
Hypothesis fuzzes the API's bodies, headers and query strings: never a 500, never a traceback."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from simulator.limits import MAX_BYTES
from simulator.serve import exact as exact_module
from simulator.serve.app import Session, create_app
from simulator.serve.guard import MAX_BODY
from simulator.serve.paths import Folders

ROOT = Path(__file__).resolve().parents[1]
FIELD_BATTLE = ROOT / "scenarios" / "his" / "field_battle.yaml"
#: A designer's file that leaves a mark when imported: importing it is what must not happen.
EVIL = textwrap.dedent(
    """
    import pathlib
    pathlib.Path(__file__).with_name("IMPORTED").write_text("imported")


    def f(dice):
        return {"a": dice.d(6)}
    """
)


@pytest.fixture
def served(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "served"
    folder.mkdir()
    shutil.copy(FIELD_BATTLE, folder / "field_battle.yaml")
    session = Session(Folders.of([folder], base=tmp_path), max_trials=10**12, threads=1)
    client = TestClient(
        create_app(session, ["127.0.0.1"]),
        base_url="http://127.0.0.1",
        raise_server_exceptions=False,
    )
    client.headers["X-Sim-Token"] = session.token
    yield session, client, tmp_path
    session.close()


def _source(client, path="served/field_battle.yaml") -> str:
    return client.get("/api/scenario", params={"path": path}).json()["source"]


def _ended(session, job: int, timeout: float = 120) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not session.jobs[job].running:
            return session.jobs[job].events_from(0)
        time.sleep(0.02)
    raise AssertionError(f"run {job} still going after {timeout} s")


# --- 1. nothing outside the served folders is read or imported --------------------------------


@pytest.fixture
def outside(served, monkeypatch):
    """A designer's file outside the served folders, and every way of naming it from inside."""
    tmp = served[2]
    out = tmp / "outside"
    out.mkdir()
    (out / "evil.py").write_text(EVIL)
    (tmp / "served" / "link.py").symlink_to(out / "evil.py")
    (tmp / "served" / "linked").symlink_to(out)
    monkeypatch.setenv("HOME", str(out))
    return out


def _untouched(folder: Path) -> None:
    assert not (folder / "IMPORTED").exists(), "the server imported a file outside its folders"
    assert not (folder / "__pycache__").exists(), "the server wrote __pycache__ outside"
    assert not [m for m in sys.modules.values() if str(folder) in str(getattr(m, "__file__", ""))]


def _naming(out: Path) -> list[str]:
    """Every spelling of the file outside: absolute, '..', '~', a symlink, a linked folder."""
    return [
        f"{out}/evil.py:f",
        "../outside/evil.py:f",
        "./../outside/evil.py:f",
        "~/evil.py:f",
        "link.py:f",
        "linked/evil.py:f",
    ]


def _scenarios(ref: str) -> list[str]:
    """A scenario naming ``ref`` as its procedure, as a rule step in params, a variant, a sweep."""
    return [
        f"name: x\nprocedure: {ref}\ntrials: 100\nseed: 1\n",
        f"name: x\nprocedure: root.battle\ntrials: 100\nseed: 1\nparams:\n  rolled_hits: '{ref}'\n",
        "name: x\nprocedure: recruitment.loyalty\ntrials: 100\nseed: 1\n"
        f"variants:\n  mine: {{ownership: '{ref}'}}\n",
        "name: x\nprocedure: root.battle\ntrials: 100\nseed: 1\n"
        f"sweep:\n  rolled_hits: ['{ref}']\n",
    ]


def test_a_posted_scenario_cannot_import_a_file_outside_the_served_folders(served, outside):
    _, client, _ = served
    for ref in _naming(outside):
        for source in _scenarios(ref):
            body = {"source": source, "path": "served/x.yaml"}
            for route in ("/api/draft", "/api/run"):
                response = client.post(route, json=body)
                assert response.status_code == 403, (route, source, response.text)
                assert "served folders" in response.json()["error"] or "outside" in response.text
            saved = client.post("/api/save", json={**body, "target": "served/y.yaml"})
            assert saved.status_code == 403, source
            # A knob change naming it is refused the same way.
            changed = {
                "source": _source(client),
                "path": "served/field_battle.yaml",
                "overrides": {"rolled_hits": ref},
            }
            assert client.post("/api/draft", json=changed).status_code == 403
    _untouched(outside)
    assert not (outside.parent / "served" / "y.yaml").exists()


def test_a_posted_path_outside_the_folders_is_refused_before_its_references_are_read(
    served, outside
):
    client = served[1]
    source = "name: x\nprocedure: evil.py:f\ntrials: 100\nseed: 1\n"
    for path in ("outside/x.yaml", "served/../outside/x.yaml", str(outside / "x.yaml"), ""):
        response = client.post("/api/draft", json={"source": source, "path": path})
        assert response.status_code == 403, path
    assert client.post("/api/draft", json={"source": source}).status_code == 400
    _untouched(outside)


def test_a_scenario_file_in_the_folders_naming_a_file_outside_is_not_opened(served, outside):
    _, client, tmp = served
    (tmp / "served" / "trap.yaml").write_text(f"name: x\nprocedure: {outside}/evil.py:f\n")
    response = client.get("/api/scenario", params={"path": "served/trap.yaml"})
    assert response.status_code == 403 and "absolute path" in response.json()["error"]
    _untouched(outside)


def test_a_file_inside_the_folders_is_imported_as_before(served, outside):
    """The control: the same file inside the served folders is read (so the checks above can
    fail), and its __pycache__ stays inside."""
    _, client, tmp = served
    inside = tmp / "served" / "mine"
    inside.mkdir()
    (inside / "evil.py").write_text(EVIL + "\nraise SystemExit('stop here')\n")
    source = "name: x\nprocedure: mine/evil.py:f\ntrials: 9\nseed: 1\n"
    answer = client.post("/api/draft", json={"source": source, "path": "served/x.yaml"}).json()
    assert any("importing the file failed" in p["text"] for p in answer["problems"]), answer
    assert (inside / "IMPORTED").exists()
    _untouched(outside)


# --- 2. Save replaces scenario files only, never in hidden folders ----------------------------


def test_save_never_replaces_a_file_that_is_not_a_scenario_nor_writes_hidden_paths(served):
    _, client, tmp = served
    folder = tmp / "served"
    (folder / "mkdocs.yml").write_text("site_name: sim\nnav: []\n")
    (folder / ".github" / "workflows").mkdir(parents=True)
    (folder / ".github" / "workflows" / "ci.yml").write_text("on: push\njobs: {}\n")
    body = {"source": _source(client), "path": "served/field_battle.yaml"}
    for target, why in {
        "served/mkdocs.yml": "not a scenario",
        "served/.github/workflows/ci.yml": ".github is hidden",
        "served/.github/new.yaml": ".github is hidden",
        "served/.hidden.yaml": ".hidden.yaml is hidden",
    }.items():
        for overwrite in (False, True):
            response = client.post("/api/save", json={**body, "target": target, "overwrite": True})
            assert response.status_code == 403, (target, overwrite)
            assert why in response.json()["error"], response.json()
    assert (folder / "mkdocs.yml").read_text() == "site_name: sim\nnav: []\n"
    assert (folder / ".github" / "workflows" / "ci.yml").read_text() == "on: push\njobs: {}\n"
    assert not (folder / ".github" / "new.yaml").exists()
    # A scenario is still replaced when confirmed.
    response = client.post(
        "/api/save", json={**body, "target": "served/field_battle.yaml", "overwrite": True}
    )
    assert response.status_code == 200


# --- 3. cookies of other local apps --------------------------------------------------------

#: Cookie headers other apps on localhost leave in the browser, each before and after ours.
BAD_COOKIES = [
    "a,b=1",
    "foo[bar]=1",
    "a b=c",
    "=abc",
    'q="unmatched',
    'r=un"matched',
    "novalue",
    "x=1;;;",
    "é=ü",
]


def test_malformed_cookies_of_other_apps_neither_hide_the_token_nor_fail(served):
    session, _, _ = served
    bare = TestClient(
        create_app(session, ["127.0.0.1"]),
        base_url="http://127.0.0.1",
        raise_server_exceptions=False,
    )
    token = f"sim_token={session.token}"
    for bad in BAD_COOKIES:
        for cookie in (f"{bad}; {token}", f"{token}; {bad}"):
            headers = {"Cookie": cookie.encode("utf-8")}
            response = bare.get("/api/scenarios", headers=headers)
            assert response.status_code == 200, (cookie, response.status_code, response.text)
        response = bare.get("/api/scenarios", headers={"Cookie": bad.encode()})
        assert response.status_code == 403, bad


# --- 4. bodies are bounded ------------------------------------------------------------------


def test_a_body_over_the_limit_is_refused_before_it_is_read(served):
    _, client, _ = served
    response = client.post(
        "/api/draft", content=b"{}", headers={"Content-Length": str(MAX_BODY + 1)}
    )
    assert response.status_code == 413 and "MiB limit" in response.json()["error"]

    def endless():
        yield b'{"source": "'
        for _ in range(MAX_BODY // 65536 + 2):
            yield b"x" * 65536

    response = client.post("/api/draft", content=endless())  # chunked: no Content-Length
    assert response.status_code == 413


def test_a_posted_source_over_the_scenario_limit_is_refused(served):
    _, client, _ = served
    source = "name: x\nprocedure: his.field_battle\n#" + "x" * MAX_BYTES + "\n"
    for route in ("/api/draft", "/api/run", "/api/save"):
        body = {"source": source, "path": "served/x.yaml", "target": "served/x.yaml"}
        response = client.post(route, json=body)
        assert response.status_code == 413, route
        assert "1 MiB limit of a scenario" in response.json()["error"]


# --- 5. a 400 with a message, never a 500 ----------------------------------------------------


def test_deep_json_and_bad_event_numbers_are_a_400_with_a_message(served):
    session, client, _ = served
    response = client.post("/api/draft", content=b"[" * 100_000)
    assert response.status_code == 400 and "nested" in response.json()["error"]
    deep = {"source": "x", "path": "served/x.yaml", "overrides": {}}
    node = deep["overrides"]
    for _ in range(200):
        node["a"] = {}
        node = node["a"]
    assert client.post("/api/draft", json=deep).status_code == 400
    source = _source(client)
    job = client.post(
        "/api/run", json={"source": source, "path": "served/field_battle.yaml", "trials": 1000}
    ).json()["job"]
    _ended(session, job)
    for value in ("9" * 5000, "²", "١", "1e3", "-"):
        response = client.get(f"/api/jobs/{job}/events", params={"from": value})
        assert response.status_code == 400, value
        assert "from:" in response.json()["error"]
        response = client.get(f"/api/jobs/{job}/events", headers={"Last-Event-ID": value.encode()})
        assert response.status_code == 400
    for job_name in ("9" * 5000, "²"):
        assert client.get(f"/api/jobs/{job_name}/events").status_code == 404


# --- 6. a designer's exact values never hold the session ------------------------------------


def _hang(params):
    total = 0
    while True:  # a NAME_exact enumerating 6**18 rolls, in short
        total += 1


def test_an_exact_function_that_never_returns_holds_neither_the_server_nor_the_run(
    served, monkeypatch
):
    """The exact values are computed beside the run, cut after their time (the result says
    so, and a rerun of the same values does not wait again), and cut at once by Stop."""
    import dataclasses

    session, client, _ = served
    monkeypatch.setattr(exact_module, "EXACT_SECONDS", 1.0)
    monkeypatch.setattr("simulator.serve.app.EXACT_SECONDS", 1.0)
    real = Session.start

    def start(self, scenario):
        proc = dataclasses.replace(scenario.procedure, exact=_hang)
        return real(self, dataclasses.replace(scenario, procedure=proc))

    monkeypatch.setattr(Session, "start", start)
    body = {"source": _source(client), "path": "served/field_battle.yaml", "trials": 1000}
    began = time.monotonic()
    job = client.post("/api/run", json=body).json()["job"]
    assert client.get("/api/scenarios").status_code == 200
    assert time.monotonic() - began < 5
    events = _ended(session, job, 30)
    [result] = [e for e in events if e["type"] == "result"]
    assert "ran over 1 s and was stopped" in result["exact_note"]
    assert all(e["exact"] is None for e in result["view"]["estimates"])
    # The same values again: remembered, not waited for.
    again = client.post("/api/run", json=body).json()["job"]
    began = time.monotonic()
    [result] = [e for e in _ended(session, again, 30) if e["type"] == "result"]
    assert time.monotonic() - began < 1.0 and "ran over 1 s" in result["exact_note"]
    # Stop cuts it at once.
    monkeypatch.setattr(exact_module, "EXACT_SECONDS", 600.0)
    monkeypatch.setattr("simulator.serve.app.EXACT_SECONDS", 600.0)
    session.exact = exact_module.ExactCache()
    job = client.post("/api/run", json={**body, "trials": 10**11}).json()["job"]
    time.sleep(0.5)
    began = time.monotonic()
    client.post(f"/api/jobs/{job}/stop")
    [result] = [e for e in _ended(session, job, 30) if e["type"] == "result"]
    assert time.monotonic() - began < 5
    assert "stopped from the page" in result["exact_note"]
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(
        t.name == "sim-serve-exact" for t in threading.enumerate()
    ):
        time.sleep(0.05)
    assert not [t for t in threading.enumerate() if t.name == "sim-serve-exact"]


def test_a_bare_except_in_an_exact_function_does_not_keep_it_running():
    """The cut is raised again until the thread ends: swallowing one does not help."""
    from types import SimpleNamespace

    def stubborn(params):
        try:
            while True:
                pass
        except BaseException:
            pass
        while True:
            pass

    params = SimpleNamespace(model_dump_json=lambda: "{}")
    procedure = SimpleNamespace(name="stubborn", exact=stubborn)
    scenario = SimpleNamespace(procedure=procedure, sweep={}, variants={"base": params})
    run = exact_module.ExactCache().run(scenario, 0.5)
    run.start()
    assert run.wait(5), "the exact function still runs"
    assert run.values == {} and "ran over 0.5 s" in run.note


def test_exact_values_that_come_in_time_are_shown(served):
    session, client, _ = served
    body = {"source": _source(client), "path": "served/field_battle.yaml", "trials": 1000}
    job = client.post("/api/run", json=body).json()["job"]
    [result] = [e for e in _ended(session, job) if e["type"] == "result"]
    assert result["exact_note"] is None
    assert all(e["exact"] is not None for e in result["view"]["estimates"])


def test_the_opposed_roll_of_9_and_9_dice_does_not_hang_the_server(served, monkeypatch):
    """The reproduction of the issue: docs/examples/opposed_roll.py with 9 and 9 dice (its exact
    function walks 6**18 rolls)."""
    session, client, tmp = served
    monkeypatch.setattr("simulator.serve.app.EXACT_SECONDS", 2.0)
    shutil.copy(ROOT / "docs" / "examples" / "opposed_roll.py", tmp / "served")
    source = (
        "name: opposed\nprocedure: opposed_roll.py:opposed_roll\ntrials: 2000\nseed: 1\n"
        "params: {attacker_dice: 9, defender_dice: 9}\n"
    )
    job = client.post("/api/run", json={"source": source, "path": "served/o.yaml"}).json()["job"]
    began = time.monotonic()
    [result] = [e for e in _ended(session, job, 60) if e["type"] == "result"]
    assert time.monotonic() - began < 10
    assert result["view"]["complete"] and "ran over 2 s" in result["exact_note"]
    assert client.get("/api/scenarios").status_code == 200


# --- 7 and 8: the process: its URL, its signals, its report folder --------------------------


def _start_server(tmp: Path, prelude: str = "") -> tuple[subprocess.Popen, str]:
    """`sim serve` in a process of its own (``prelude`` run first, to make something slow);
    its URL as soon as it is printed."""
    folder = tmp / "served"
    folder.mkdir(exist_ok=True)
    shutil.copy(FIELD_BATTLE, folder / "field_battle.yaml")
    (tmp / "tmp").mkdir(exist_ok=True)
    code = f"{prelude}\nfrom simulator.cli import main\nmain()\n"
    env = {**os.environ, "TMPDIR": str(tmp / "tmp"), "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--port", "0", "--root", str(folder)],
        cwd=tmp,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if line.strip().startswith("http://"):
            return process, line.strip()
    raise AssertionError(f"no URL printed: {process.stderr.read() if process.stderr else ''}")


def _connect_at_once(url: str) -> socket.socket:
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
    return socket.create_connection((host, int(port)), timeout=5)


def _post(url: str, route: str, body: dict) -> dict:
    import urllib.request

    token = url.split("token=")[1]
    base = url.split("/?")[0]
    request = urllib.request.Request(
        base + route,
        data=json.dumps(body).encode(),
        headers={"X-Sim-Token": token, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


def test_the_url_is_printed_once_the_socket_listens(tmp_path):
    process, url = _start_server(tmp_path)
    try:
        with _connect_at_once(url) as s:  # refused if printed before listening
            token = url.split("token=")[1]
            s.sendall(
                f"GET /favicon.ico?token={token} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
            )
            assert s.recv(64).startswith(b"HTTP/1.1 204")
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 130


#: Stands in for a busy run whose chunk takes minutes, and a request compiling a designer's file:
#: neither returns for 300 s, nor notices a stop.
SLOW = textwrap.dedent(
    """
    import time
    import simulator.serve.jobs as jobs
    import simulator.serve.form as form
    def slow_run(*args, **kwargs):
        time.sleep(300)
    checked = form.validate
    def slow_check(text, file):
        if file.endswith("slow.yaml"):
            time.sleep(300)
        return checked(text, file)
    jobs.run_scenario = slow_run
    form.validate = slow_check
    """
)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_stops_a_busy_server_within_seconds_and_removes_its_reports(tmp_path, signum):
    process, url = _start_server(tmp_path, SLOW)
    try:
        source = FIELD_BATTLE.read_text()
        job = _post(url, "/api/run", {"source": source, "path": "served/field_battle.yaml"})
        assert job["job"] == 1

        def draft_that_never_ends() -> None:
            with contextlib.suppress(OSError):  # the server goes away mid-request
                _post(url, "/api/draft", {"source": source, "path": "served/slow.yaml"})

        busy = threading.Thread(target=draft_that_never_ends, daemon=True)
        busy.start()
        time.sleep(1.0)
        assert len(list((tmp_path / "tmp").glob("sim-serve-*"))) == 1
        began = time.monotonic()
        process.send_signal(signum)
        code = process.wait(30)
        took = time.monotonic() - began
    finally:
        process.kill()
    assert code == 128 + signum
    assert took < 8, f"{took:.1f} s to stop"
    assert not list((tmp_path / "tmp").glob("sim-serve-*")), "the report folder was left"
    assert f"stopped ({signal.Signals(signum).name})" in process.stderr.read()


def test_a_report_folder_left_by_a_killed_server_is_removed_by_the_next(tmp_path):
    process, _ = _start_server(tmp_path)
    process.kill()
    process.wait(30)
    assert len(list((tmp_path / "tmp").glob("sim-serve-*"))) == 1
    process, _ = _start_server(tmp_path)
    try:
        assert len(list((tmp_path / "tmp").glob("sim-serve-*"))) == 1  # its own only
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    assert not list((tmp_path / "tmp").glob("sim-serve-*"))


def test_the_page_asks_for_nothing_that_is_not_there(served):
    _, client, _ = served
    page = client.get("/")
    assert '<link rel="icon" href="data:,">' in page.text
    assert client.get("/favicon.ico").status_code == 204


# --- the fuzz: bodies, headers and query strings ------------------------------------------

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "source": st.text(max_size=200) | JSON,
        "path": st.sampled_from(["served/field_battle.yaml", "served/x.yaml", "../x.yaml", ""])
        | st.text(max_size=30)
        | JSON,
        "overrides": JSON,
        "variant": st.text(max_size=12) | JSON,
        "trials": st.integers(-(10**30), 10**30) | JSON,
        "seed": st.integers(-(10**30), 10**30) | JSON,
        "target": st.text(max_size=30) | JSON,
        "overwrite": JSON,
    },
)
HEADER_TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=255), max_size=40)
#: Numbers as a hostile client writes them: thousands of digits, other scripts' digits.
NUMBERS = st.text(alphabet="0123456789²١-", min_size=1, max_size=6000)


@FUZZ
@example(  # the reproductions of the issue, always tried first
    route="/api/draft",
    body=b"[" * 100_000,
    cookie='a,b=1; q="x',
    event_id="9" * 5000,
    query={"from": "²"},
    length=None,
)
@example(route="/api/run", body={}, cookie="", event_id="²", query={"from": "9" * 5000}, length="")
@given(
    route=st.sampled_from(["/api/draft", "/api/run", "/api/save", "/api/jobs/1/stop"]),
    body=FIELDS | JSON | st.binary(max_size=60) | st.integers(1, 200_000).map(lambda n: b"[" * n),
    cookie=HEADER_TEXT,
    event_id=HEADER_TEXT | NUMBERS,
    query=st.dictionaries(
        st.sampled_from(["from", "path", "variant", "token"]),
        st.text(max_size=30) | NUMBERS,
        max_size=3,
    ),
    length=st.none() | HEADER_TEXT | NUMBERS,
)
def test_fuzzing_the_api_never_gives_a_500_nor_a_traceback(
    served, route, body, cookie, event_id, query, length
):
    session, client, _ = served
    session.max_trials = 10**5  # a run the fuzz starts ends at once
    if 1 not in session.jobs:  # a finished run, whose events and report the fuzz asks for
        first = {"source": FIELD_BATTLE.read_text(), "path": "served/x.yaml", "trials": 1000}
        assert client.post("/api/run", json=first).json()["job"] == 1
    for job in session.jobs.values():
        job.stop()
        job.join(30)
    if isinstance(body, dict) and body.get("source") == "":
        body["source"] = FIELD_BATTLE.read_text()
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Cookie": cookie.encode(), "Last-Event-ID": event_id.encode()}
    if length is not None:
        headers["Content-Length"] = length.encode()
    answers = []
    for method, url in (
        ("POST", route),
        ("GET", "/api/scenario"),
        ("GET", "/api/jobs/1/events"),
        ("GET", "/api/jobs/1/figures"),
    ):
        try:
            answers.append(
                client.request(
                    method,
                    url,
                    content=content if method == "POST" else None,
                    headers=headers,
                    params=query,
                )
            )
        except Exception as e:  # the client refusing to send a malformed header is no answer
            if "header" in str(e).lower() or "content-length" in str(e).lower():
                continue
            raise
    for answer in answers:
        assert answer.status_code < 500, (answer.request.url, answer.status_code)
        if answer.headers.get("content-type", "").startswith(("text", "application/json")):
            assert "Traceback" not in answer.text
