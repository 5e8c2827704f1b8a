"""A watch's state folder is its own: a second ``rankdoctor watch`` given the same folder is
refused before it reads anything (two would each take the other's offsets and reported incidents
for theirs, and report or skip the other's), and the folder is free again once the first stops,
however it stops. ``rankdoctor remediate --status`` with a watch's config reads the remediation
state that watch keeps in its state folder (it read /var/lib/rankdoctor)."""

from __future__ import annotations

import io
import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from detector.cli.remediate import main as remediate_main
from detector.remediation.config import load_remediation_config
from detector.report.jsonfmt import incident_to_dict
from tests.support.remediation import FakeClock, FakePoster, FakeRunner, make_incident, slurm_responder
from tests.support.sidecar import PYTHON, REPO, SidecarProc


@pytest.fixture
def sidecars() -> Iterator[list[SidecarProc]]:
    items: list[SidecarProc] = []
    yield items
    for sc in items:
        sc.kill()


def _second_watch(logs: Path, state: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PYTHON, "-m", "detector.cli", "watch", "--logs", str(logs), "--state", str(state),
                           "--no-nvml", "--no-metrics", "--no-remediate"],
                          cwd=REPO, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_a_second_watch_on_a_state_folder_in_use_is_refused(tmp_path: Path, sidecars: list[SidecarProc]) -> None:
    logs, state = tmp_path / "logs", tmp_path / "state"
    logs.mkdir()
    (logs / "rank_0.log").write_text("step 1 loss 2.0\n")
    first = SidecarProc(tmp_path, ["--logs", str(logs), "--state", str(state), "--no-nvml", "--no-remediate"],
                        name="first", metrics_addr="")
    sidecars.append(first)
    second = _second_watch(logs, state)
    assert second.returncode == 1, second.stderr
    assert f"the state folder {state} is in use by another rankdoctor watch (pid {first.proc.pid} on {socket.gethostname()})" in second.stderr
    assert "Traceback" not in second.stderr
    first.kill()  # (SIGKILL: the kernel lets the lock go with the process)
    again = SidecarProc(tmp_path, ["--logs", str(logs), "--state", str(state), "--no-nvml", "--no-remediate"],
                        name="again", metrics_addr="")
    sidecars.append(again)
    assert again.stop() == 0


def test_remediate_reads_the_remediation_state_of_a_watch_s_config(tmp_path: Path) -> None:
    cfg = tmp_path / "watch.yaml"
    cfg.write_text("state_dir: watch-state\nremediation:\n  hooks:\n    - type: slurm\n      job_id: \"1234\"\n"
                   "      resubmit: requeue\n")
    assert load_remediation_config(cfg, environ={}).state_dir == tmp_path / "watch-state" / "remediation"
    incident = tmp_path / "incident.json"
    incident.write_text(json.dumps(incident_to_dict(make_incident("inc-7"))))

    def run(args: list[str]) -> tuple[int, str]:
        out, err = io.StringIO(), io.StringIO()
        code = remediate_main(args, environ={"USER": "alice"}, stdout=out, stderr=err,
                              runner=FakeRunner([slurm_responder()]), clock=FakeClock(), poster=FakePoster(),
                              entry_points=lambda: [])
        return code, out.getvalue() + err.getvalue()

    code, out = run([str(incident), "--config", str(cfg), "--act", "--no-verify"])
    assert code == 0, out
    assert (tmp_path / "watch-state" / "remediation" / "audit.jsonl").is_file()
    code, out = run(["--status", "--config", str(cfg)])
    assert code == 0 and "inc-7 gpu_hardware node=n1" in out, out
    # (a remediation section that names its own state folder keeps it)
    cfg.write_text("state_dir: watch-state\nremediation:\n  state_dir: own\n  hooks:\n    - type: slurm\n"
                   "      job_id: \"1234\"\n")
    assert load_remediation_config(cfg, environ={}).state_dir == tmp_path / "own"
