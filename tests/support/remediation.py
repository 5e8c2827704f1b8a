"""Fakes and builders shared by the remediation tests (no tests here): a clock, a command
runner, a webhook poster, incidents, configs, a remediator built on them, checkpoints."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from detector.remediation.build import build_remediator
from detector.remediation.config import RemediationConfig, parse_remediation
from detector.remediation.exec.process import CommandResult
from detector.remediation.remediator import Remediator
from detector.support.yamlfile import loads_yaml
from detector.types import (
    Cause,
    Finding,
    Incident,
    Initiator,
    Remediation,
    Role,
    Severity,
)

T0 = 1_796_000_000.0


class FakeClock:
    """Wall and monotonic time that only move when ``sleep`` or ``advance`` is called."""

    def __init__(self, start: float = T0) -> None:
        self._t = start
        self._lock = threading.Lock()
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self._t

    def monotonic(self) -> float:
        return self._t - T0 + 1000.0

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            self._t += max(0.0, seconds)

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._t += seconds


Responder = Callable[[tuple[str, ...]], CommandResult | None]


@dataclass
class FakeRunner:
    """Records every argument list; answers from ``responders`` (first non-None wins), else
    exit 0 with empty output."""

    responders: list[Responder] = field(default_factory=list)
    calls: list[tuple[tuple[str, ...], Mapping[str, str] | None, str | None]] = field(
        default_factory=list)

    def __call__(self, argv: Sequence[str], *, timeout: float, stdin: str | None = None,
                 env: Mapping[str, str] | None = None) -> CommandResult:
        args = tuple(argv)
        self.calls.append((args, env, stdin))
        for responder in self.responders:
            res = responder(args)
            if res is not None:
                return res
        return CommandResult(args, 0, "", "")

    @property
    def argvs(self) -> list[tuple[str, ...]]:
        return [c[0] for c in self.calls]


def slurm_responder(state: str = "IDLE+DRAIN", num_nodes: int = 4,
                    command: str = "/jobs/train.sh") -> Responder:
    """Answers ``scontrol show node/job`` like Slurm 22.05 does (-o, one line)."""

    def respond(argv: tuple[str, ...]) -> CommandResult | None:
        if argv[1:3] == ("show", "node"):
            return CommandResult(argv, 0, f"NodeName={argv[-1]} Arch=x86_64 State={state} "
                                          "Reason=x\n", "")
        if argv[1:3] == ("show", "job"):
            return CommandResult(argv, 0, f"JobId={argv[-1]} JobState=FAILED "
                                          f"NumNodes={num_nodes} Command={command} "
                                          "StdOut=/jobs/out.log StdErr=/jobs/out.log\n", "")
        if argv[0] == "sbatch":
            return CommandResult(argv, 0, "777\n", "")
        return None

    return respond


class FakePoster:
    def __init__(self, status: int = 200, fail: Exception | None = None) -> None:
        self.status = status
        self.fail = fail
        self.posts: list[tuple[str, bytes, dict[str, str]]] = []

    def __call__(self, url: str, body: bytes, headers: Mapping[str, str],
                 timeout: float) -> int:
        self.posts.append((url, body, dict(headers)))
        if self.fail is not None:
            raise self.fail
        return self.status


def make_incident(ident: str = "inc-1", cause: Cause = Cause.GPU_HARDWARE,
                  node: str | None = "n1", rank: int | None = 1, confidence: float = 0.95,
                  drain: bool = True, resubmit: bool = True,
                  text: str = "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
                  ) -> Incident:
    when = datetime.fromtimestamp(T0, UTC)
    return Incident(
        id=ident,
        cause=cause,
        initiator=Initiator(rank=rank, local_rank=rank, node=node, gpu=None, pid=None),
        collateral_ranks=(0,),
        confidence=confidence,
        first_evidence_time=when,
        explanation=f"{cause.value} on {node}",
        evidence=(Finding(rule="xid.fallen_off_bus", role=Role.INITIATOR, cause=cause,
                          severity=Severity.CRITICAL, text=text, file="n1/kern.log", line=1,
                          time=when, node=node),),
        remediation=Remediation(drain_node=drain, resubmit=resubmit, fix="drain it",
                                verify="nvidia-smi"),
    )


def config_from_yaml(text: str, tmp: Path, environ: Mapping[str, str] | None = None
                     ) -> RemediationConfig:
    data: Any = loads_yaml(text, str(tmp / "rankdoctor.yaml"))
    return parse_remediation(data["remediation"], str(tmp / "rankdoctor.yaml"), base_dir=tmp,
                             environ=environ or {}, line=data.pos["remediation"][0])


SECRET_URL = "https://hooks.example.com/services/T0/B0/XOXB-SECRET"


def make(tmp_path: Path, *, act: bool = True, hooks: str | None = None, extra: str = "",
         runner: Any = None, clock: Any = None, poster: FakePoster | None = None,
         entry_points: Any = None) -> tuple[Remediator, FakeRunner, FakePoster]:
    """A remediator on a FakeRunner (Slurm answers), a FakePoster and a FakeClock; by default
    with the checkpoint, slurm and webhook hooks."""
    runner = runner or FakeRunner([slurm_responder("IDLE+DRAIN", num_nodes=8)])
    poster = poster or FakePoster()
    hooks = hooks if hooks is not None else f"""\
    - {{type: checkpoint, dir: {tmp_path / 'ckpt'}}}
    - {{type: slurm, job_id: "1234", resubmit: requeue}}
    - {{type: webhook, url: "{SECRET_URL}", token: tok-SECRET-1}}
"""
    cfg = config_from_yaml(f"""\
remediation:
  state_dir: {tmp_path / 'state'}
  verify: {{logs: ["{tmp_path}/logs/*.log"], deadline_s: 60, poll_s: 1}}
{extra}  hooks:
{hooks}""", tmp_path)
    rem = build_remediator(cfg, environ={}, act=act, runner=runner,
                           clock=clock or FakeClock(), poster=poster,
                           entry_points=entry_points or (lambda: []))
    return rem, runner, poster


def checkpoint(tmp_path: Path, step: int) -> None:
    d = tmp_path / "ckpt" / f"step_{step:08d}"
    d.mkdir(parents=True)
    (d / "model.pt").write_bytes(b"weights")
    (d / "COMPLETE").touch()
