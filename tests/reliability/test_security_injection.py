"""Log text, host names, job ids and file names never reach a shell or a command line unchecked.

Injection strings (``;``, ``$()``, backticks, newlines, ``--option`` look-alikes) are put in
every field that can reach a hook -- the incident's id, node, GPU, explanation and evidence (as
a forged incident file and as log lines replayed into a real report), a checkpoint's name on
disk, ``SLURM_JOB_ID`` -- and the hooks run for real (``--act``) against recording stand-ins
for ``scontrol``/``sbatch``/``scancel``/``kubectl`` and a command hook, through the production
:class:`SubprocessRunner`. What each program received is then checked: a canary file that any
shell would create never appears, no argument taken from the incident starts with ``-``, an
invalid node name is refused (no drain), and the incident reaches the command hook only as
inert JSON on stdin, byte for byte.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detector.cli.main import main as rankdoctor
from detector.remediation.build import build_remediator
from detector.remediation.config import parse_remediation
from detector.remediation.exec.argv import NODE_RE
from detector.remediation.exec.process import CommandResult
from detector.remediation.hooks.base import HookEnv
from detector.remediation.hooks.slurm import SlurmHook
from detector.remediation.model import Action, Event, HookCall, Status
from detector.support.clock import SystemClock
from detector.types import Cause, Finding, Incident, Initiator, Remediation, Role, Severity
from tests.support.remediation import FakePoster, FakeRunner

ROOT = Path(__file__).resolve().parents[2]
CANARY = "PWNED"
INJECTIONS = [
    f"; touch {CANARY}",
    f"$(touch {CANARY})",
    f"`touch {CANARY}`",
    f"x\ntouch {CANARY}",
    f"| touch {CANARY}",
    f"&& touch {CANARY} &&",
    f"--output=/tmp/{CANARY}",
    f"-rf /tmp/{CANARY}",
    f"' ; touch {CANARY} ; '",
    f'" ; touch {CANARY} ; "',
    f"$IFS$(touch${{IFS}}{CANARY})",
    "\x00nul",
    "\u202egnp.exe",
]
# every injection, four to an incident (each remediation runs ~10 real processes)
GROUPS = [" ".join(INJECTIONS[i::4]) for i in range(4)]

RECORDER = """#!{python}
import json, os, sys
with open(os.environ["RD_RECORD"], "a", encoding="utf-8") as fh:
    fh.write(json.dumps({{"prog": os.path.basename(sys.argv[0]), "argv": sys.argv[1:],
                          "env": {{k: v for k, v in os.environ.items() if k.startswith("RANKDOCTOR_")}},
                          "stdin": sys.stdin.read() if not sys.stdin.isatty() else ""}}) + "\\n")
name = os.path.basename(sys.argv[0])
args = sys.argv[1:]
if name == "scontrol" and args[:2] == ["show", "node"]:
    print("NodeName=" + args[-1] + " State=IDLE+DRAIN")
elif name == "scontrol" and args[:2] == ["show", "job"]:
    print("JobId=" + args[-1] + " JobState=RUNNING NumNodes=4 Command=/bin/true")
elif name == "sbatch":
    print("4321")
"""

# flags the hooks themselves put in argv (config literals, not incident data)
HOOK_FLAGS = {"--parsable", "--resume", "--wait=false", "--overwrite", "--field-selector", "-n", "-l", "--node",
              "--id", "--reason", "--rank", "--gpu", "--ckpt", "-o"}


@pytest.fixture()
def bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Path]]:
    """Recording stand-ins on PATH, a canary-watched working directory, a checkpoint folder."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for prog in ("scontrol", "sbatch", "scancel", "kubectl", "site-hook"):
        path = bindir / prog
        path.write_text(RECORDER.format(python=sys.executable))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    work = tmp_path / "work"
    work.mkdir()
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    record = tmp_path / "record.jsonl"
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("RD_RECORD", str(record))
    monkeypatch.chdir(work)
    yield {"bin": bindir, "work": work, "ckpt": ckpt, "record": record, "tmp": tmp_path}
    assert not list(tmp_path.rglob(CANARY)), "a shell ran an injected command"
    assert not Path("/tmp", CANARY).exists()


def config(tmp: Path, ckpt: Path, *, job_id: str = "1234") -> Path:
    path = tmp / "rankdoctor.yaml"
    path.write_text(f"""\
remediation:
  act: true
  state_dir: {tmp / 'state'}
  min_confidence: 0.5
  hook_retries: 0
  budget: {{max_drains_per_hour: 100, max_drain_fraction: 1.0}}
  verify: {{enabled: false}}
  hooks:
    - type: checkpoint
      dir: {ckpt}
      completion: size
      settle_s: 0
    - type: slurm
      job_id: "{job_id}"
      resubmit: sbatch
      script: /bin/true
      resume_args: ["--resume", "{{checkpoint}}"]
    - type: kubernetes
      namespace: train
      selector: app=trainer
    - type: command
      actions: [drain, resubmit, notify]
      argv: [site-hook, --node, "{{node}}", --id, "{{incident_id}}", --reason, "{{reason}}", --rank, "{{rank}}",
             --ckpt, "{{checkpoint}}", "{{cause}}", "{{confidence}}", "{{action}}", "{{event}}", "{{checkpoint_step}}"]
""")
    return path


def incident_doc(text: str, *, node: str = "node07", ident: str = "inc-1") -> dict[str, Any]:
    return {
        "id": ident, "cause": "gpu_hardware",
        "initiator": {"rank": 3, "local_rank": 3, "node": node, "gpu": text[:40], "pid": 99},
        "collateral_ranks": [0, 1, 2], "confidence": 0.95, "first_evidence_time": "2026-11-29T12:00:00+00:00",
        "explanation": text, "evidence": [{"time": None, "file": text, "line": 1, "rank": 3, "node": text,
                                           "rule": text, "role": "initiator", "text": text}],
        "remediation": {"drain_node": True, "resubmit": True, "fix": text, "verify": text},
    }


def records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def check_argv(recs: list[dict[str, Any]], ckpt_paths: set[str]) -> None:
    """Every argument is a hook's own flag, or data that cannot pass for an option or carry a
    shell construct (the checkpoint path is one argument naming a real directory entry)."""
    for rec in recs:
        for arg in rec["argv"]:
            if arg in ckpt_paths:
                assert os.path.lexists(arg) and not arg.startswith("-")
                continue
            assert not arg.startswith("-") or arg in HOOK_FLAGS or arg.startswith("--exclude="), (rec["prog"], arg)
            assert not re.search(r"[;`$|&\n\x00'\"<>]", arg), (rec["prog"], arg)


def remediate(cfg: Path, incident: Path, *extra: str) -> int:
    return rankdoctor(["remediate", str(incident), "--config", str(cfg), "--act", "--no-verify", *extra])


@pytest.mark.parametrize("text", GROUPS)
def test_injection_in_incident_fields_is_inert(bench: dict[str, Path], text: str) -> None:
    """Valid node, injection everywhere else: the drain and resubmission happen with clean
    arguments; the command hook gets the incident, injection included, only on stdin."""
    (bench["ckpt"] / "step_00000100").write_bytes(b"x" * 10)
    os.utime(bench["ckpt"] / "step_00000100", (1, 1))
    doc = incident_doc(text, ident=f"inc {text}")
    path = bench["tmp"] / "incident.json"
    path.write_text(json.dumps(doc))
    assert remediate(config(bench["tmp"], bench["ckpt"]), path) == 0
    recs = records(bench["record"])
    progs = [r["prog"] for r in recs]
    assert "scontrol" in progs and "kubectl" in progs and "sbatch" in progs and "site-hook" in progs
    check_argv(recs, {str(bench["ckpt"] / "step_00000100")})
    drain = next(r for r in recs if r["prog"] == "scontrol" and "update" in r["argv"])
    assert drain["argv"][:3] == ["update", "NodeName=node07", "State=DRAIN"]
    assert re.fullmatch(r"Reason=rankdoctor: gpu_hardware [A-Za-z0-9._:-]+", drain["argv"][3])
    hook_calls = [r for r in recs if r["prog"] == "site-hook"]
    for rec in hook_calls:
        assert json.loads(rec["stdin"]) == {**doc, "confidence": 0.95}  # the data, exactly, as data
        assert "\n" not in "".join(rec["env"].values()).replace(rec["env"].get("RANKDOCTOR_SUMMARY", ""), "")


@pytest.mark.parametrize("node", [f"node07{INJECTIONS[0]}", "--all", "node\n07", "node07 State=RESUME"])
def test_invalid_node_names_are_refused(bench: dict[str, Path], node: str) -> None:
    """A node name from the logs that fails the node-name check is never drained: no scontrol
    update, no kubectl cordon/taint; the decision says why."""
    path = bench["tmp"] / "incident.json"
    path.write_text(json.dumps(incident_doc("boom", node=node)))
    assert not NODE_RE.fullmatch(node)
    remediate(config(bench["tmp"], bench["ckpt"]), path)
    recs = records(bench["record"])
    assert not [r for r in recs if r["prog"] == "scontrol" and "update" in r["argv"]]
    assert not [r for r in recs if r["prog"] == "kubectl" and ({"cordon", "taint"} & set(r["argv"]))]
    assert not any(arg == node or f"={node}" in arg for r in recs for arg in r["argv"])
    audit = (bench["tmp"] / "state" / "audit.jsonl").read_text()
    assert "fails the node-name check" in audit


@pytest.mark.parametrize("name", ["--output=x_00000300", "step_00000500$(touch PWNED)", "step_00000600\ntouch PWNED"])
def test_checkpoint_names_from_disk_stay_one_inert_argument(bench: dict[str, Path], name: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The training job names its checkpoints; a name is handed over as one argument (and in
    RANKDOCTOR_RESUME_FROM), even with ``dir: .`` where the path would start with the name."""
    monkeypatch.chdir(bench["ckpt"])
    entry = bench["ckpt"] / name
    entry.write_bytes(b"x" * 10)
    os.utime(entry, (1, 1))
    cfg_path = config(bench["tmp"], Path("."))
    doc_path = bench["tmp"] / "incident.json"
    doc_path.write_text(json.dumps(incident_doc("boom")))
    assert remediate(cfg_path, doc_path) == 0
    recs = records(bench["record"])
    expected = f"./{name}" if name.startswith("-") else name  # Path(".") / "--x" prints as "--x"
    sbatch = next(r for r in recs if r["prog"] == "sbatch")
    assert sbatch["argv"][-2:] == ["--resume", expected]
    for rec in recs:
        for arg in rec["argv"]:
            assert not arg.startswith("-") or arg in HOOK_FLAGS or arg.startswith("--exclude="), arg
    hook = next(r for r in recs if r["prog"] == "site-hook" and "drain" in r["argv"])
    assert hook["argv"][hook["argv"].index("--ckpt") + 1] == expected


@pytest.mark.parametrize("job", ["1234; touch PWNED", "$(id)", "--array=1", "12 34", "1234\n"])
def test_job_ids_are_checked(tmp_path: Path, job: str) -> None:
    """A job id from the config or from SLURM_JOB_ID that is not ``\\d+(_\\d+)?`` is refused
    before anything runs."""
    cfg = parse_remediation({"state_dir": str(tmp_path), "hooks": [{"type": "slurm"}]}, "c.yaml",
                            base_dir=tmp_path, environ={"SLURM_JOB_ID": job})
    from detector.errors import ConfigError

    with pytest.raises(ConfigError, match="job"):
        build_remediator(cfg, environ={"SLURM_JOB_ID": job})
    cfg2 = parse_remediation({"state_dir": str(tmp_path), "hooks": [{"type": "slurm", "job_id": job}]}, "c.yaml",
                             base_dir=tmp_path, environ={})
    with pytest.raises(ConfigError, match="job_id"):
        build_remediator(cfg2, environ={})


def _inject_run(src: Path, dst: Path) -> None:
    """A real scenario with injection strings written into its logs: host names, evidence
    lines, a preemption notice naming a host."""
    shutil.copytree(src, dst)
    for log in sorted(dst.rglob("*.log"))[:4]:
        with log.open("a", encoding="utf-8") as fh:
            for text in INJECTIONS[:8]:
                fh.write(f"[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered {text}\n")
            fh.write(f"*** JOB 1234 ON node07$(touch {CANARY}) CANCELLED AT 2026-11-29T12:00:00 DUE TO PREEMPTION ***\n")
            fh.write(f"node07;touch {CANARY}:123:456 [0] NCCL INFO comm 0x1 rank 0 nranks 16 cudaDev 0 busId 3b000 - Init COMPLETE\n")


def test_injection_from_replayed_logs(bench: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """Logs -> report (the real replay) -> remediate --act: whatever the logs say, the argv of
    every program holds only checked values."""
    run = bench["tmp"] / "run"
    _inject_run(ROOT / "replay_logs" / "xid79_fallen_off_bus_16r", run)
    report = bench["tmp"] / "report.json"
    assert rankdoctor(["replay", str(run), "--format", "json", "-o", str(report), "--no-progress"]) == 0
    doc = json.loads(report.read_text())
    assert doc["incidents"], "the scenario still yields an incident"
    for i, incident in enumerate(doc["incidents"][:3]):
        one = bench["tmp"] / f"incident{i}.json"
        one.write_text(json.dumps(incident))
        remediate(config(bench["tmp"], bench["ckpt"]), one)
    capsys.readouterr()
    recs = records(bench["record"])
    assert recs
    check_argv(recs, set())
    for rec in recs:
        if rec["prog"] == "site-hook":
            json.loads(rec["stdin"])  # the incident as JSON data


# --- property: any incident, every hook, every planned argument -----------------------------

_SAFE_ARG = re.compile(r"^[A-Za-z0-9/._:=+, -]*$")
_nasty_text = st.sampled_from(INJECTIONS) | st.text(max_size=30)


class _NoRun:
    def __call__(self, argv: Any, *, timeout: float, stdin: str | None = None,
                 env: Any = None) -> CommandResult:
        raise AssertionError(f"a dry-run ran {argv!r}")


@settings(max_examples=50, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(node=_nasty_text | st.sampled_from(["node07", "gpu-a100-17.cluster"]), ident=_nasty_text, text=_nasty_text,
       rank=st.none() | st.integers(-5, 10**6), cause=st.sampled_from(list(Cause)))
def test_planned_commands_hold_only_checked_values(tmp_path_factory: pytest.TempPathFactory, node: str, ident: str,
                                                   text: str, rank: int | None, cause: Cause) -> None:
    tmp = tmp_path_factory.mktemp("plan")
    cfg = parse_remediation({
        "state_dir": str(tmp), "min_confidence": 0.1,
        "hooks": [{"type": "slurm", "job_id": "77", "resubmit": "sbatch", "script": "/bin/true"},
                  {"type": "kubernetes", "namespace": "ns", "selector": "app=x"},
                  {"type": "command", "actions": ["drain", "resubmit", "notify"],
                   "argv": ["/bin/site", "{node}", "{incident_id}", "{reason}", "{rank}", "{cause}", "{confidence}"]}],
    }, "c.yaml", base_dir=tmp, environ={})
    remediator = build_remediator(cfg, environ={}, act=False, runner=_NoRun())
    finding = Finding(rule=text, role=Role.INITIATOR, cause=cause, severity=Severity.ERROR, text=text, file=text,
                      line=1, node=text)
    incident = Incident(id=ident or "x", cause=cause, initiator=Initiator(rank=rank, node=node or None, gpu=text),
                        collateral_ranks=(), confidence=0.9, first_evidence_time=None, explanation=text,
                        evidence=(finding,), remediation=Remediation(drain_node=True, resubmit=True, fix=text, verify=text))
    decision = remediator.handle(incident)
    for outcome in decision.outcomes:
        for argv in outcome.result.commands:
            for arg in argv[1:]:
                assert _SAFE_ARG.match(arg), (outcome.hook, arg)
                assert not arg.startswith("-") or arg in {"--parsable", "-n", "-l", "--field-selector", "--wait=false",
                                                          "--overwrite"} or arg.startswith("--exclude="), arg
            if decision.node is None:
                assert "update" not in argv and "cordon" not in argv


@pytest.mark.parametrize(("owner", "runs"), [(1000, False), (0, True)])
def test_sbatch_does_not_resubmit_another_users_script_with_our_rights(owner: int, runs: bool) -> None:
    """``resubmit: sbatch`` without ``script`` takes the job's Command from scontrol; sbatch
    submits as the caller, so a root coordinator used to run any user's script as root."""
    def respond(argv: tuple[str, ...]) -> CommandResult | None:
        if argv[1:3] == ("show", "job"):
            return CommandResult(argv, 0, f"JobId=1234 UserId=alice({owner}) GroupId=alice(1000) JobState=FAILED "
                                          "NumNodes=4 Command=/home/alice/train.sh\n", "")
        if argv[0] == "sbatch":
            return CommandResult(argv, 0, "777\n", "")
        return None

    runner = FakeRunner([respond])
    hook = SlurmHook(HookEnv(runner=runner, clock=SystemClock(), poster=FakePoster(), environ={}),
                     job_id="1234", resubmit="sbatch", uid=0)
    incident = Incident(id="i", cause=Cause.GPU_HARDWARE, initiator=Initiator(node="n1"), collateral_ranks=(),
                        confidence=0.9, first_evidence_time=None, explanation="", evidence=(),
                        remediation=Remediation(drain_node=True, resubmit=True, fix="", verify=""))
    call = HookCall(action=Action.RESUBMIT, event=Event.DECISION, incident=incident, incident_json="{}",
                    incident_token="i", node="n1", reason="rankdoctor: gpu_hardware i", summary="",
                    checkpoint=None, deadline=time.monotonic() + 30)
    result = hook.run(call)
    sbatch = [a for a in runner.argvs if a[0] == "sbatch"]
    if runs:
        assert result.status is Status.OK and sbatch
    else:
        assert result.status is Status.FAILED and not sbatch
        assert "uid 1000" in result.detail and "requeue" in result.detail
