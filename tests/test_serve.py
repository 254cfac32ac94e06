"""`sim serve`'s server: the token, the folders it keeps to, one run at a time with its caps, the
form's problems as `sim validate` words them, and a run equal to `sim run --json` of the saved
file, bit for bit."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient
from typer.testing import CliRunner

from simulator.cli import app as cli
from simulator.serve import form
from simulator.serve.app import Session, create_app
from simulator.serve.paths import Folders

ROOT = Path(__file__).resolve().parents[1]
FIELD_BATTLE = ROOT / "scenarios" / "his" / "field_battle.yaml"
#: Long enough that only a stop ends it (field battles run at ~1e8-1e9 trials/s here).
LONG = 10**11


@pytest.fixture
def served(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # as `sim serve` runs: paths are read from its working folder
    folder = tmp_path / "served"
    folder.mkdir()
    shutil.copy(FIELD_BATTLE, folder / "field_battle.yaml")
    session = Session(Folders.of([folder], base=tmp_path), max_trials=10**12, threads=1)
    client = TestClient(create_app(session, ["127.0.0.1"]), base_url="http://127.0.0.1")
    client.headers["X-Sim-Token"] = session.token
    yield session, client, tmp_path
    session.close()


def _draft(client, path="served/field_battle.yaml", **changes):
    data = client.get("/api/scenario", params={"path": path}).json()
    return {"path": data["path"], "source": data["source"], **changes}


def _events(client, job: int) -> list[dict]:
    events = []
    with client.stream("GET", f"/api/jobs/{job}/events") as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
    return events


def _wait(session, job: int, kind: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for event in session.jobs[job].events_from(0):
            if event["type"] == kind and (kind != "progress" or "view" in event):
                return event
        time.sleep(0.02)
    raise AssertionError(f"no {kind} event within {timeout} s")


# --- the token ------------------------------------------------------------------------------


def test_requests_without_the_token_are_refused(served):
    session, _, _ = served
    bare = TestClient(create_app(session, ["127.0.0.1"]), base_url="http://127.0.0.1")
    for url in ("/", "/static/app.js", "/api/scenarios", "/api/jobs/1/events"):
        assert bare.get(url).status_code == 403, url
        assert bare.get(url, params={"token": "x" + session.token}).status_code == 403, url
    assert bare.post("/api/run", json={}).status_code == 403
    page = bare.get("/", params={"token": session.token})
    assert page.status_code == 200 and "sim serve" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    # The page's cookie opens GETs (scripts, the event stream, downloads) ...
    assert bare.get("/api/scenarios").status_code == 200
    # ... but never a POST: another site's page can make the browser send a cookie, not a header.
    assert bare.post("/api/save", json={}).status_code == 403


def test_another_host_name_is_not_answered(served):
    """DNS rebinding: a page of evil.example resolving to 127.0.0.1 gets nothing."""
    _, client, _ = served
    assert client.get("/api/scenarios", headers={"Host": "evil.example"}).status_code == 400


# --- the folders ----------------------------------------------------------------------------


def test_paths_outside_the_served_folders_are_refused(served):
    _, client, tmp = served
    outside = tmp / "outside.yaml"
    outside.write_text(FIELD_BATTLE.read_text())
    (tmp / "served" / "link.yaml").symlink_to(outside)
    (tmp / "served" / "notes.txt").write_text("procedure: x\n")
    (tmp / "served" / "plain.yaml").write_text("a: 1\n")
    os.mkfifo(tmp / "served" / "pipe.yaml")
    refused = {
        "outside.yaml": "outside the folders",
        "served/../outside.yaml": "outside the folders",
        str(outside): "outside the folders",
        "/etc/passwd": "outside the folders",
        "served/link.yaml": "symlink",
        "served/notes.txt": "not a scenario file",
        "served/plain.yaml": "not a scenario",
        "served/pipe.yaml": "not a regular file",
        "served/missing.yaml": "no such file",
    }
    for path, why in refused.items():
        response = client.get("/api/scenario", params={"path": path})
        assert response.status_code == 403, path
        assert why in response.json()["error"], (path, response.json())
    listed = client.get("/api/scenarios").json()["files"]
    assert "served/field_battle.yaml" in listed
    assert "served/link.yaml" not in listed
    body = _draft(client)
    for target in ("outside.yaml", "served/../x.yaml", "served/link.yaml", "served/x.txt"):
        response = client.post("/api/save", json={**body, "target": target})
        assert response.status_code == 403, target
    assert outside.read_text() == FIELD_BATTLE.read_text()


def test_a_save_never_replaces_a_file_without_the_overwrite_confirmation(served):
    _, client, tmp = served
    body = _draft(client, overrides={"defender_extra_dice": 0})
    target = tmp / "served" / "field_battle.yaml"
    before = target.read_text()
    response = client.post("/api/save", json={**body, "target": "served/field_battle.yaml"})
    assert response.status_code == 409 and response.json()["exists"]
    assert target.read_text() == before
    response = client.post(
        "/api/save", json={**body, "target": "served/field_battle.yaml", "overwrite": True}
    )
    assert response.status_code == 200
    assert "defender_extra_dice: 0" in target.read_text()
    # An invalid scenario is not written at all.
    bad = _draft(client, overrides={"defender_extra_dice": 9})
    response = client.post("/api/save", json={**bad, "target": "served/bad.yaml"})
    assert response.status_code == 422
    assert not (tmp / "served" / "bad.yaml").exists()


# --- the form -------------------------------------------------------------------------------


def test_a_bad_value_is_shown_beside_its_field_as_sim_validate_says_it(served, monkeypatch):
    _, client, tmp = served
    body = _draft(client, overrides={"defender_extra_dice": 9})
    answer = client.post("/api/draft", json=body).json()
    [problem] = answer["problems"]
    assert problem["field"] == "defender_extra_dice"
    monkeypatch.chdir(tmp)
    Path(body["path"]).write_text(answer["text"])
    result = CliRunner().invoke(cli, ["validate", body["path"]])
    assert result.exit_code == 2
    assert result.stderr.strip() == problem["text"]
    assert "variants.edit.defender_extra_dice: must be between 0 and 5 (got 9)" in problem["text"]


def test_the_form_carries_the_parameter_model_and_the_file_s_edits(served):
    _, client, _ = served
    data = client.get("/api/scenario", params={"path": "served/field_battle.yaml"}).json()
    schema = data["procedure"]["schema"]
    extra = schema["properties"]["defender_extra_dice"]
    assert (extra["minimum"], extra["maximum"], extra["default"]) == (0, 5, 1)
    assert "extra dice of the defender" in extra["description"]
    assert schema["properties"]["ties_to"]["enum"] == ["defender", "attacker"]
    assert data["base"]["defender_extra_dice"] == 1 and data["edits"] == {}
    text = form.compose_text(form.Draft(data["source"], "f.yaml", overrides={"hit_on": 6}))
    assert form.form(text, "f.yaml")["edits"] == {"hit_on": 6}
    # Nothing changed: the file's own text, comments and all.
    assert form.compose_text(form.Draft(data["source"], "f.yaml")) == data["source"]


def test_saving_an_edit_keeps_every_comment_and_the_order_of_the_file():
    source = (
        "# A field battle (Here I Stand rules §5).\n"
        "procedure: his.field_battle   # the rule\n"
        "trials: 1000\n"
        "params:\n"
        "  defender_extra_dice: 1  # the fortress\n"
        "variants:\n"
        "  # the designer's first idea\n"
        "  strong:\n"
        "    hit_on: 4\n"
    )
    text = form.compose_text(form.Draft(source, "f.yaml", overrides={"defender_extra_dice": 0}))
    for line in source.splitlines():
        assert line in text.splitlines(), line
    assert text.index("strong:") < text.index("edit:")
    assert form.form(text, "f.yaml")["edits"] == {"defender_extra_dice": 0}
    again = form.compose_text(form.Draft(text, "f.yaml", overrides={"defender_extra_dice": 2}))
    assert again.count("# Edited in sim serve") == 1
    assert "defender_extra_dice: 2" in again and "  # the fortress" in again


def test_assumption_marks_reach_the_form():
    import dataclasses

    from simulator import procedures
    from simulator.procedures.base import Alternative, Assumption

    proc = dataclasses.replace(
        procedures.get("his.field_battle"),
        assumptions=(
            Assumption(
                "ties",
                "ties_to",
                "rulebook",
                "Here I Stand rules §5.1",
                "ties to the defender",
                (Alternative("to the attacker", {"ties_to": "attacker"}),),
            ),
        ),
    )
    marks = form._marks(proc)
    assert marks["ties_to"]["tag"] == "rulebook"
    assert marks["ties_to"]["alternatives"] == ["to the attacker"]


# --- runs -----------------------------------------------------------------------------------


def test_a_run_equals_sim_run_json_of_the_saved_file(served, monkeypatch):
    """The page's run of a knob change, saved and rerun by the CLI: the same document."""
    _, client, tmp = served
    body = _draft(client, overrides={"defender_extra_dice": 0}, trials=200_000)
    job = client.post("/api/run", json=body).json()["job"]
    events = _events(client, job)
    [result] = [e for e in events if e["type"] == "result"]
    assert result["view"]["complete"]
    assert events[0]["type"] == "start" and events[-1]["type"] == "end"
    saved = client.post("/api/save", json={**body, "target": "served/edited.yaml"})
    assert saved.status_code == 200
    monkeypatch.chdir(tmp)
    out = CliRunner().invoke(
        cli, ["run", "served/edited.yaml", "--json", "--out", str(tmp / "report")]
    )
    assert out.exit_code == 0, out.output
    assert json.dumps(result["document"], indent=2) == out.stdout.strip()
    assert list(result["document"]["variants"]) == ["base", "edit"]
    summary = result["view"]["summary"]
    assert summary["header"] == ["metric", "base", "edit", "Δ ±95%"]
    # What the answer rests on comes first (the verdict's order), then the change.
    assert summary["verdict"][0].startswith("rests on 1 reading (captured_after_retreat)")
    assert summary["verdict"][1].startswith("edit: 1 of 1 metrics changed; attacker_wins +")
    # The report folder of that run: what `sim run` writes, zipped.
    archive = client.get(f"/api/jobs/{job}/report.zip")
    assert archive.status_code == 200 and archive.content[:2] == b"PK"
    assert "<h1>his-field-battle-4v3" in client.get(f"/api/jobs/{job}/report.html").text
    # Its figures, drawn by the report writer, shown on the page by their bare names only.
    figures = client.get(f"/api/jobs/{job}/figures").json()["figures"]
    assert figures and all(name.endswith(".png") for name in figures)
    png = client.get(f"/api/jobs/{job}/figures/{figures[0]}")
    assert png.status_code == 200 and png.content[:4] == b"\x89PNG"
    for name in ("report.html", "..%2Fserved%2Ffield_battle.yaml", "nothing.png"):
        assert client.get(f"/api/jobs/{job}/figures/{name}").status_code == 404


def test_one_run_at_a_time_and_stop_keeps_a_partial_result(served):
    session, client, _ = served
    body = _draft(client, overrides={"defender_extra_dice": 0}, trials=LONG)
    job = client.post("/api/run", json=body).json()["job"]
    partial = _wait(session, job, "progress")
    assert 0 < partial["view"]["trials"] < LONG and not partial["view"]["complete"]
    second = client.post("/api/run", json=_draft(client))
    assert second.status_code == 409
    assert client.post(f"/api/jobs/{job}/stop").status_code == 200
    events = _events(client, job)
    [result] = [e for e in events if e["type"] == "result"]
    assert not result["view"]["complete"]
    assert result["stopped"] == "stopped from the page"
    done = result["document"]["trials"]
    assert partial["view"]["trials"] <= done < LONG
    # Stopped like Ctrl-C: exactly the first `done` trials, as a fresh run of that many.
    again = client.post("/api/run", json={**body, "trials": done})
    assert again.status_code == 200
    [whole] = [e for e in _events(client, again.json()["job"]) if e["type"] == "result"]
    assert whole["view"]["complete"]
    assert whole["document"]["variants"] == result["document"]["variants"]
    # The stream resumes after the last event the page saw (EventSource's Last-Event-ID).
    with client.stream(
        "GET", f"/api/jobs/{job}/events", headers={"Last-Event-ID": str(len(events) - 2)}
    ) as response:
        assert [json.loads(x[6:])["type"] for x in response.iter_lines() if x[:5] == "data:"] == [
            "end"
        ]


def test_partial_estimates_tighten_and_add_up_to_the_engine_s(served):
    """Each partial view is the run of its first trials: its estimates equal a fresh run's."""
    session, client, _ = served
    body = _draft(client, overrides={"defender_extra_dice": 0}, trials=LONG)
    job = client.post("/api/run", json=body).json()["job"]
    first = _wait(session, job, "progress")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        views = [e["view"] for e in session.jobs[job].events_from(0) if "view" in e]
        if views[-1]["trials"] > first["view"]["trials"]:
            break
        time.sleep(0.05)
    client.post(f"/api/jobs/{job}/stop")
    session.jobs[job].join(60)
    early, late = views[0], views[-1]
    assert late["trials"] > early["trials"]

    def width(view):
        [e] = [
            e
            for e in view["estimates"]
            if e["variant"] == "edit" and e["metric"] == "attacker_wins"
        ]
        return e["ci_high"] - e["ci_low"]

    assert width(late) < width(early)
    fresh = client.post("/api/run", json={**body, "trials": early["trials"]}).json()["job"]
    [result] = [e for e in _events(client, fresh) if e["type"] == "result"]
    assert result["view"]["estimates"] == early["estimates"]


def test_the_caps_on_trials_and_time(served):
    session, client, _ = served
    session.max_trials = 10**6
    response = client.post("/api/run", json=_draft(client, trials=10**6 + 1))
    assert response.status_code == 422
    [problem] = response.json()["problems"]
    assert problem["field"] == "trials" and "cap of 1,000,000" in problem["text"]
    session.max_trials, session.max_seconds = LONG, 1.0
    job = client.post("/api/run", json=_draft(client, trials=LONG)).json()["job"]
    [result] = [e for e in _events(client, job) if e["type"] == "result"]
    assert not result["view"]["complete"]
    assert "time cap (1 s)" in result["stopped"]
