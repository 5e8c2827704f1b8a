"""``rankdoctor remediate``: dry-run output, --act, --status, --reset-breaker, input forms."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from detector.cli.remediate import main
from detector.report.jsonfmt import incident_to_dict
from detector.types import Cause
from tests.support.remediation import (
    FakeClock,
    FakePoster,
    FakeRunner,
    make_incident,
    slurm_responder,
)

SECRET = "https://hooks.example.com/services/T1/B1/SEKRET-PATH"


def setup(tmp_path: Path, act: bool = False) -> Path:
    cfg = tmp_path / "rankdoctor.yaml"
    cfg.write_text(f"""\
remediation:
  act: {str(act).lower()}
  state_dir: state
  hooks:
    - type: slurm
      job_id: "1234"
      resubmit: requeue
    - type: webhook
      url_env: HOOK_URL
""")
    return cfg


def run(args: list[str], runner: FakeRunner | None = None,
        poster: FakePoster | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, environ={"HOOK_URL": SECRET, "USER": "alice"}, stdout=out, stderr=err,
                runner=runner or FakeRunner([slurm_responder()]), clock=FakeClock(),
                poster=poster or FakePoster(), entry_points=lambda: [])
    return code, out.getvalue(), err.getvalue()


def incident_file(tmp_path: Path, doc: Any, name: str = "incident.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_dry_run_prints_what_it_would_do(tmp_path: Path) -> None:
    cfg = setup(tmp_path)
    inc = incident_file(tmp_path, incident_to_dict(make_incident()))
    runner = FakeRunner([slurm_responder()])
    code, out, _ = run([str(inc), "--config", str(cfg)], runner=runner)
    assert code == 0
    assert "decision: dry_run: drain n1, resubmit" in out
    assert "$ scontrol update NodeName=n1 State=DRAIN 'Reason=rankdoctor: gpu_hardware inc-1'" in out
    assert "$ scontrol requeue 1234" in out
    assert "dry-run: nothing was changed" in out
    assert "SEKRET" not in out
    assert all("show" in a for a in runner.argvs)


def test_act_from_a_whole_report_and_status(tmp_path: Path) -> None:
    cfg = setup(tmp_path)
    report = {"schema": "rankdoctor.report/v1", "source": "x", "summary": {},
              "incidents": [incident_to_dict(make_incident("first")),
                            incident_to_dict(make_incident("second"))], "warnings": []}
    inc = incident_file(tmp_path, report)
    runner = FakeRunner([slurm_responder()])
    poster = FakePoster()
    code, out, _ = run([str(inc), "--config", str(cfg), "--act", "--no-verify", "--json"],
                       runner=runner, poster=poster)
    assert code == 0
    doc = json.loads(out)
    assert doc["decision"]["incident_id"] == "first" and doc["decision"]["outcome"] == "acted"
    assert ("scontrol", "requeue", "1234") in runner.argvs
    assert len(poster.posts) == 1 and poster.posts[0][0] == SECRET
    audit = (tmp_path / "state" / "audit.jsonl").read_text()
    assert "SEKRET" not in audit and '"outcome": "acted"' in audit
    code, out, _ = run(["--status", "--config", str(cfg)])
    assert code == 0
    assert "breaker: closed" in out and "drains in the last hour: 1 of 2" in out
    assert "first gpu_hardware node=n1 job=slurm:1234 acted" in out


def test_breaker_reset(tmp_path: Path) -> None:
    cfg = setup(tmp_path)
    for i in range(3):
        inc = incident_file(tmp_path, incident_to_dict(make_incident(f"i{i}", node=f"n{i}")))
        run([str(inc), "--config", str(cfg), "--act", "--no-verify"],
            runner=FakeRunner([slurm_responder(num_nodes=100)]))
    code, out, _ = run(["--status", "--config", str(cfg), "--json"])
    status = json.loads(out)
    assert status["breaker"]["open"] is True
    assert "drain 3 in the last hour" in status["breaker"]["reason"]
    code, out, _ = run(["--reset-breaker", "--config", str(cfg)])
    assert code == 0 and out.startswith("breaker closed (was open: drain budget")
    code, out, _ = run(["--status", "--config", str(cfg)])
    assert "breaker: closed (reset" in out and "by alice" in out
    audit = [json.loads(x) for x in (tmp_path / "state" / "audit.jsonl").read_text().splitlines()]
    assert [r["state"] for r in audit if r["kind"] == "breaker"] == ["open", "reset"]


def test_sidecar_incident_line_and_act_from_config(tmp_path: Path) -> None:
    cfg = setup(tmp_path, act=True)
    line = json.dumps(incident_to_dict(make_incident(cause=Cause.PYTHON_EXCEPTION)))
    inc = tmp_path / "incident.jsonl"
    inc.write_text(line + "\n")
    runner = FakeRunner()
    code, out, _ = run([str(inc), "--config", str(cfg)], runner=runner)
    assert code == 0 and "decision: notified: notify only" in out
    assert "python_exception is not a machine fault" in out
    assert runner.argvs == []


@pytest.mark.parametrize(("content", "words"), [
    ("{}", "missing key 'id'"),
    ("not json", "not JSON"),
    ('{"incidents": []}', "the report has no incidents"),
    ('{"id": "a"}\n{"id": "b"}\n', "holds 2 lines"),
])
def test_bad_incident_input(tmp_path: Path, content: str, words: str) -> None:
    cfg = setup(tmp_path)
    inc = tmp_path / "bad.json"
    inc.write_text(content)
    code, _, err = run([str(inc), "--config", str(cfg)])
    assert code == 2 and words in err


def test_config_errors_and_usage(tmp_path: Path) -> None:
    cfg = tmp_path / "rankdoctor.yaml"
    cfg.write_text("remediation:\n  hooks:\n    - type: slurm\n      jobid: 1\n")
    inc = incident_file(tmp_path, incident_to_dict(make_incident()))
    code, _, err = run([str(inc), "--config", str(cfg)])
    assert code == 2 and f"{cfg}:4" in err and "jobid: unknown key" in err
    code, _, err = run(["--config", str(setup(tmp_path))])
    assert code == 2 and "give an INCIDENT.json" in err
    code, _, _ = run([str(inc)])  # --config is required
    assert code == 2


def test_failed_action_exits_1(tmp_path: Path) -> None:
    cfg = setup(tmp_path)
    inc = incident_file(tmp_path, incident_to_dict(make_incident()))
    code, out, _ = run([str(inc), "--config", str(cfg), "--act"],
                       runner=FakeRunner([slurm_responder("IDLE")]))
    assert code == 1 and "decision: failed" in out and "IDLE after the drain" in out


def test_unusable_state_dir_is_a_config_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    cfg = tmp_path / "rd.yaml"
    cfg.write_text(f"remediation:\n  state_dir: {blocker}/state\n")
    code, _, err = run(["--status", "--config", str(cfg)])
    assert code == 2 and "cannot use state_dir" in err


def test_act_with_an_audit_log_it_cannot_write_acts_on_nothing(tmp_path: Path) -> None:
    """The audit log is a folder (or a file this user may not append to): remediate refuses before
    any hook runs (the hooks ran, then the audit write raised: actions taken and not recorded)."""
    cfg = tmp_path / "rankdoctor.yaml"
    (tmp_path / "audit-is-a-folder").mkdir()
    cfg.write_text(f"""\
remediation:
  state_dir: state
  audit_log: {tmp_path / "audit-is-a-folder"}
  hooks:
    - type: slurm
      job_id: "1234"
      resubmit: requeue
""")
    inc = incident_file(tmp_path, incident_to_dict(make_incident()))
    runner = FakeRunner([slurm_responder()])
    code, _, err = run([str(inc), "--config", str(cfg), "--act", "--no-verify"], runner=runner)
    assert code == 2
    assert "the audit log cannot be written" in err and "Traceback" not in err
    assert not any(a[:2] in (("scontrol", "update"), ("scontrol", "requeue")) for a in runner.argvs)


def test_the_incident_from_standard_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`replay --format json | remediate -`: '-' is standard input (it was read as a file named '-')."""
    cfg = setup(tmp_path)
    doc = json.dumps(incident_to_dict(make_incident())).encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(doc)))
    code, out, err = run(["-", "--config", str(cfg)])
    assert code == 0, err
    assert "decision: dry_run: drain n1, resubmit" in out


def test_escape_sequences_in_a_hand_made_incident_are_shown_not_sent(tmp_path: Path) -> None:
    """An incident file's id and node are untrusted: their terminal escapes are printed as text."""
    cfg = setup(tmp_path)
    doc = incident_to_dict(make_incident("inc-\x1b]0;pwned\x07\x1b[2J"))
    inc = incident_file(tmp_path, doc)
    code, out, _ = run([str(inc), "--config", str(cfg)])
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "inc-\\x1b]0;pwned\\x07\\x1b[2J" in out
