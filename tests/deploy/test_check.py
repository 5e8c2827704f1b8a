"""``rankdoctor check``: one OK / WARN / FAIL line per probe of what ``watch`` would use, with
the fix; exit 0 when everything configured works, 1 when something fails, 2 on usage errors.
Run against this machine as it is (no GPU, no NVML driver, /dev/kmsg readable as root), a real
Prometheus (the tests' session one) and a closed port."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from detector.cli.check import main
from detector.sidecar.config import SidecarConfig
from detector.sidecar.preflight.node import probe_kernel, probe_nvml, probe_ptrace
from detector.sidecar.preflight.probe import Level, Outside
from tests.support.paths import ROOT
from tests.support.prometheus import PromServer, free_port, prometheus_server  # noqa: F401 - fixture

ROOT_USER = os.geteuid() == 0
NO_GPU = not Path("/dev/nvidiactl").exists()


def run(argv: Sequence[str], outside: Outside | None = None) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = main(list(argv), outside=outside, stdout=out)
    return code, out.getvalue().splitlines()


def line(lines: list[str], what: str) -> str:
    found = [x for x in lines if x.split(None, 1)[1].startswith(what + ":")]
    assert len(found) == 1, f"{len(found)} lines for {what!r}:\n" + "\n".join(lines)
    return found[0]


def level(lines: list[str], what: str) -> str:
    return line(lines, what).split()[0]


def make_tree(tmp: Path) -> Path:
    (tmp / "logs").mkdir()
    (tmp / "logs" / "rank_0.log").write_text("step 1\n")
    (tmp / "glob").mkdir()
    (tmp / "glob" / "console.log").write_text("hello\n")
    (tmp / "ckpt").mkdir()
    return tmp


CONFIG = """\
logs: [logs, "glob/*.log", not-yet, /nonexistent-rankdoctor/logs]
kmsg: /dev/kmsg
nvml: true
prometheus: {{url: "{prom}", timeout_s: 2}}
state_dir: state
incidents: out/incidents.jsonl
metrics_addr: 127.0.0.1:0
node: node01
job: train-42
remediation:
  state_dir: remediation
  hooks:
    - {{type: slurm, resubmit: sbatch, job_id: "1234", scontrol: rankdoctor-no-such-scontrol,
       sbatch: rankdoctor-no-such-sbatch}}
    - {{type: kubernetes, kubectl: rankdoctor-no-such-kubectl, namespace: ml, selector: "app=train"}}
    - {{type: webhook, url: "https://hooks.example.com/services/T0/B0/s3cr3t"}}
    - {{type: command, argv: [rankdoctor-no-such-pager, "{{incident_id}}"]}}
    - {{type: checkpoint, dir: "{ckpt}"}}   # the hook takes dir as given (from the working folder)
"""


def test_a_config_naming_each_kind(tmp_path: Path, prometheus_server: PromServer) -> None:  # noqa: F811
    make_tree(tmp_path)
    config = tmp_path / "watch.yaml"
    config.write_text(CONFIG.format(prom=prometheus_server.url, ckpt=tmp_path / "ckpt"))
    code, lines = run(["--config", str(config)])
    text = "\n".join(lines)
    assert code == 1, text
    assert level(lines, "config") == "OK"
    assert level(lines, "rules") == "OK"
    assert line(lines, f"logs {tmp_path}/logs").startswith("OK    logs") and "1 file(s) readable" in text
    assert level(lines, f"logs {tmp_path}/glob/*.log") == "OK"
    assert level(lines, f"logs {tmp_path}/not-yet") == "WARN"
    bad = line(lines, "logs /nonexistent-rankdoctor/logs")
    assert bad.startswith("FAIL") and "mount the trainers' log volume" in bad
    kmsg = line(lines, "kernel log /dev/kmsg")
    assert kmsg.startswith("OK") if ROOT_USER else ("FAIL" in kmsg and "CAP_SYSLOG" in kmsg)
    if NO_GPU:
        nvml = line(lines, "NVML")
        assert nvml.startswith("FAIL") and "no NVIDIA driver" in nvml and "--no-nvml" in nvml
    assert level(lines, f"prometheus {prometheus_server.url}") == "OK"
    assert level(lines, "prometheus DCGM series") == "WARN"  # the test's Prometheus scrapes no DCGM exporter
    for what in ("state_dir", "incidents", "metrics 127.0.0.1:0", "remediation state_dir", "remediation audit_log"):
        assert level(lines, what) == "OK", what
    scontrol = line(lines, "hook slurm (slurm) scontrol")
    assert scontrol.startswith("FAIL") and "rankdoctor-no-such-scontrol not found" in scontrol
    assert "slurm-client" in scontrol
    assert level(lines, "hook slurm (slurm) sbatch") == "FAIL"
    kubectl = line(lines, "hook kubernetes (kubernetes) kubectl")
    assert kubectl.startswith("FAIL") and "install kubectl" in kubectl
    webhook = line(lines, "hook webhook (webhook)")
    assert webhook.startswith("OK") and "https://hooks.example.com/…" in webhook
    assert "s3cr3t" not in text  # the webhook URL is a secret
    assert level(lines, "hook command (command) argv[0]") == "FAIL"
    assert level(lines, "hook checkpoint (checkpoint)") == "OK"
    failed = sum(x.startswith("FAIL") for x in lines)
    assert lines[-1].endswith(f"{failed} failed") and failed >= 5


def test_everything_configured_works(tmp_path: Path, prometheus_server: PromServer) -> None:  # noqa: F811
    make_tree(tmp_path)
    argv = ["--logs", str(tmp_path / "logs"), "--no-nvml", "--prometheus", prometheus_server.url,
            "--state", str(tmp_path / "state"), "--incidents", str(tmp_path / "incidents.jsonl"),
            "--metrics-addr", "127.0.0.1:0"]
    if ROOT_USER:
        argv += ["--kmsg", "/dev/kmsg"]
    code, lines = run(argv)
    assert code == 0, "\n".join(lines)
    assert not [x for x in lines if x.startswith("FAIL")]
    assert not [x for x in lines if x.split(None, 1)[1].startswith("NVML")]  # --no-nvml: not probed


def test_prometheus_on_a_closed_port(tmp_path: Path) -> None:
    make_tree(tmp_path)
    url = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    code, lines = run(["--logs", str(tmp_path / "logs"), "--no-nvml", "--prometheus", url, "--timeout", "2",
                       "--no-metrics"])
    assert code == 1
    failed = line(lines, f"prometheus {url}")
    assert failed.startswith("FAIL") and "unreachable" in failed and "fix: check the URL" in failed
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("argv", [
    [],                                                    # nothing to check
    ["--bogus"],
    ["--logs", "/tmp", "--metrics-addr", "not-an-address"],
    ["--logs", "/tmp", "--timeout", "0"],
    ["--logs", "/tmp", "--coordinator"],                   # needs --prometheus
])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = run(argv)
    assert code == 2, lines
    assert "rankdoctor check" in capsys.readouterr().err or argv == ["--bogus"]


def test_an_invalid_config_fails_with_its_line(tmp_path: Path) -> None:
    config = tmp_path / "watch.yaml"
    config.write_text("logs: [/tmp]\nlogz: [/var/log]\n")
    code, lines = run(["--config", str(config)])
    assert code == 1
    assert lines[0].startswith("FAIL  config") and f"{config}:2" in lines[0]


@pytest.mark.parametrize(("hook", "message"), [
    ('{type: webhook, url: "ftp://hooks.example.com/x"}', "must be an http:// or https:// URL"),
    ("{type: webhook, url_env: RANKDOCTOR_TEST_NO_SUCH_VAR}", "environment variable RANKDOCTOR_TEST_NO_SUCH_VAR is not set"),
])
def test_a_bad_webhook_fails(hook: str, message: str, tmp_path: Path) -> None:
    make_tree(tmp_path)
    config = tmp_path / "watch.yaml"
    config.write_text(f"logs: [logs]\nnvml: false\nmetrics_addr: null\nremediation:\n  state_dir: rem\n"
                      f"  hooks:\n    - {hook}\n")
    code, lines = run(["--config", str(config)], Outside(environ={}))
    assert code == 1
    failed = line(lines, "hook webhook (webhook)")
    assert failed.startswith("FAIL") and message in failed


@pytest.mark.skipif(not ROOT_USER or shutil.which("setpriv") is None, reason="needs root and setpriv to drop to nobody")
def test_kmsg_refused_to_another_user(tmp_path: Path) -> None:
    if Path("/proc/sys/kernel/dmesg_restrict").read_text().strip() != "1":
        pytest.skip("kernel.dmesg_restrict is 0: every user may read /dev/kmsg here")
    res = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                          "--bounding-set=-all", sys.executable, "-m", "detector.cli", "check", "--kmsg", "/dev/kmsg",
                          "--no-nvml", "--no-metrics"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 1, res.stdout + res.stderr
    failed = line(res.stdout.splitlines(), "kernel log /dev/kmsg")
    assert failed.startswith("FAIL") and "permission denied" in failed and "CAP_SYSLOG" in failed
    assert "WARN  stacks ptrace" in res.stdout and "CAP_SYS_PTRACE not held" in res.stdout


def test_journalctl_missing() -> None:
    probe = probe_kernel("journalctl", Outside(which=lambda _name: None))
    assert probe.level is Level.FAIL and "journalctl not found" in probe.detail and "/dev/kmsg" in probe.fix


class FakeNvml:
    def __init__(self, count: int) -> None:
        self.count = count
        self.shut = False

    def nvmlInit(self) -> None:
        pass

    def nvmlDeviceGetCount(self) -> int:
        return self.count

    def nvmlSystemGetDriverVersion(self) -> bytes:
        return b"550.90.07"

    def nvmlShutdown(self) -> None:
        self.shut = True


def test_nvml_probe() -> None:
    fake = FakeNvml(8)
    probe = probe_nvml(Outside(nvml_loader=lambda: fake))
    assert (probe.level, probe.detail) == (Level.OK, "driver 550.90.07, 8 GPU(s)") and fake.shut
    assert probe_nvml(Outside(nvml_loader=lambda: FakeNvml(0))).level is Level.WARN

    def missing() -> Any:
        raise ImportError("No module named 'pynvml'")

    probe = probe_nvml(Outside(nvml_loader=missing))
    assert probe.level is Level.FAIL and probe.fix == "pip install nvidia-ml-py"
    if NO_GPU:  # the real one, here: no driver
        probe = probe_nvml(Outside())
        assert probe.level is Level.FAIL and "no NVIDIA driver" in probe.detail


@pytest.mark.parametrize(("scope", "cap", "expected", "says"), [
    ("0", True, Level.OK, "CAP_SYS_PTRACE held"),
    ("1", False, Level.WARN, "py-spy cannot attach"),
    ("2", True, Level.OK, "ptrace_scope=2"),
    ("3", True, Level.WARN, "until reboot"),
    (None, False, Level.WARN, "only ranks of the sidecar's own user"),
])
def test_ptrace_probe(scope: str | None, cap: bool, expected: Level, says: str, tmp_path: Path) -> None:
    status = tmp_path / "status"
    status.write_text(f"Name:\tpython\nCapEff:\t{(1 << 19 if cap else 0) | 1 << 21:016x}\n")
    yama = tmp_path / "ptrace_scope"
    if scope is not None:
        yama.write_text(scope + "\n")
    probes = probe_ptrace(SidecarConfig(), Outside(proc_status=status, yama_scope=yama))
    ptrace = next(p for p in probes if p.what == "stacks ptrace")
    assert ptrace.level is expected and says in ptrace.detail, ptrace
    if expected is Level.WARN and scope != "3":
        assert "SYS_PTRACE" in ptrace.fix
    tool = next(p for p in probes if p.what == "stacks py-spy")
    assert tool.level is (Level.OK if shutil.which("py-spy") or Path(sys.executable).with_name("py-spy").exists()
                          else Level.WARN)


def test_the_command_is_registered() -> None:
    res = subprocess.run([sys.executable, "-m", "detector.cli", "check", "--help"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, check=False)
    assert res.returncode == 0 and "OK / WARN / FAIL" in res.stdout and "--kmsg" in res.stdout


def test_a_bad_rule_file_fails_with_its_line(tmp_path: Path) -> None:
    make_tree(tmp_path)
    rules = tmp_path / "site.yaml"
    rules.write_text("rules:\n  - id: bad\n    pattern: '('\n")
    code, lines = run(["--logs", str(tmp_path / "logs"), "--no-nvml", "--no-metrics", "--rules", str(rules)])
    assert code == 1
    failed = line(lines, "rules")
    assert failed.startswith("FAIL") and f"{rules}:2" in failed and "rankdoctor rules validate" in failed
    assert all("\n" not in x for x in lines)
