"""The fifty-fourth session's remediation safety mends (a hostile tester's findings): a node named
``ALL`` by a log line drained every node of a Slurm cluster; a node that is not the job's was
drained; a webhook's redirect was followed (the POST repeated as a GET, the token sent on); an
incident id with a space added acted a second time; a state folder on a full or unwritable disk
stopped the sidecar with a traceback."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from detector.remediation.exec.argv import drain_reason, valid_node
from detector.remediation.exec.process import CommandResult
from detector.remediation.hooks.base import HookEnv
from detector.remediation.hooks.slurm import make_slurm_hook
from detector.remediation.hooks.webhook import UrllibPoster, make_webhook_hook
from detector.remediation.model import Action, Event, HookCall, Outcome, Status
from detector.remediation.policy import decide
from detector.report.jsonfmt import incident_to_dict
from detector.sidecar.state import SidecarStore
from detector.support.clock import SystemClock
from detector.support.settings import Settings
from tests.support.remediation import FakePoster, FakeRunner, make, make_incident


def _env(runner: Any = None, poster: Any = None) -> HookEnv:
    return HookEnv(runner=runner or FakeRunner(), clock=SystemClock(), poster=poster or FakePoster(), environ={})


def _call(action: Action, node: str | None) -> HookCall:
    inc = make_incident(node=node)
    return HookCall(action=action, event=Event.DECISION, incident=inc, incident_json=json.dumps(incident_to_dict(inc)),
                    incident_token=inc.id, node=node, reason=drain_reason(inc.cause.value, inc.id),
                    summary="", checkpoint=None, deadline=time.monotonic() + 30)


def test_a_node_named_all_is_never_drained() -> None:
    """Slurm reads NodeName=ALL as every node of the cluster: a log line naming the host ALL made
    'gpu_hardware on ALL', and --act drained the whole cluster."""
    for name in ("ALL", "all", "All", "localhost", "none"):
        assert not valid_node(name)
        plan = decide(make_incident(node=name), min_confidence=0.5)
        assert not plan.drain and plan.node is None and any("fails the node-name check" in n for n in plan.reasons)
    assert valid_node("node02") and valid_node("gpu-a01.cluster")


def _job_with_nodes(node_list: str) -> Any:
    def respond(argv: tuple[str, ...]) -> CommandResult | None:
        if argv[1:3] == ("show", "job"):
            return CommandResult(argv, 0, f"JobId={argv[-1]} JobState=RUNNING NumNodes=2 NodeList={node_list} "
                                          "Command=/jobs/train.sh\n", "")
        if argv[1:3] == ("show", "node"):
            return CommandResult(argv, 0, f"NodeName={argv[-1]} State=IDLE+DRAIN\n", "")
        return None
    return respond


def test_only_a_node_of_the_job_is_drained() -> None:
    """A node name read from the job's own output may name any machine: where the job is known,
    a node that is none of its nodes is not drained (dry run and act), the job's own is."""
    runner = FakeRunner([_job_with_nodes("gpu[07-08]")])
    hook = make_slurm_hook(Settings({"job_id": "1234"}, "t.yaml", what="hook", line=1), _env(runner))
    for run in (hook.plan, hook.run):
        res = run(_call(Action.DRAIN, "login01"))
        assert res.status is Status.FAILED and "not one of job 1234's nodes" in res.detail
    assert not any("update" in argv for argv in runner.argvs)
    assert hook.run(_call(Action.DRAIN, "gpu08")).status is Status.OK
    assert ("scontrol", "update", "NodeName=gpu08", "State=DRAIN",
            "Reason=rankdoctor: gpu_hardware inc-1") in runner.argvs


def test_a_heterogeneous_jobs_every_component_holds_its_nodes() -> None:
    """`scontrol show job -o` of a heterogeneous job prints a line a component (a PPO job's CPU
    nodes, then its GPU nodes): a GPU node of the second is the job's (a reviewer: refused)."""
    out = ("JobId=5001 HetJobId=5001 HetJobOffset=0 JobState=RUNNING ReqNodeList=(null) NodeList=cpu-[01-02] NumNodes=2\n"
           "JobId=5002 HetJobId=5001 HetJobOffset=1 JobState=RUNNING ReqNodeList=(null) NodeList=gpu-[001-004] "
           "NumNodes=4\n")

    def respond(argv: tuple[str, ...]) -> CommandResult | None:
        if argv[1:3] == ("show", "job"):
            return CommandResult(argv, 0, out, "")
        if argv[1:3] == ("show", "node"):
            return CommandResult(argv, 0, f"NodeName={argv[-1]} State=IDLE+DRAIN\n", "")
        return None

    hook = make_slurm_hook(Settings({"job_id": "5001"}, "t.yaml", what="hook", line=1), _env(FakeRunner([respond])))
    assert hook.run(_call(Action.DRAIN, "gpu-003")).status is Status.OK
    assert hook.run(_call(Action.DRAIN, "gpu-009")).status is Status.FAILED


def test_an_incident_id_with_spaces_added_is_the_same_incident(tmp_path: Path) -> None:
    """The same incident again with a space (or a line break) added to its id acted a second time:
    a second drain and a second requeue of the job."""
    rem, runner, _ = make(tmp_path)
    assert rem.handle(make_incident(ident="inc-8b31fd821036")).outcome is Outcome.ACTED
    acted = [a for a in runner.argvs if "show" not in a]
    for variant in ("inc-8b31fd821036 ", " inc-8b31fd821036\n"):
        d = rem.handle(make_incident(ident=variant))
        assert d.outcome is Outcome.DUPLICATE
    assert [a for a in runner.argvs if "show" not in a] == acted


class _Redirect(BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str, str]]] = []
    target = ""

    def do_POST(self) -> None:
        _Redirect.seen.append(("POST", self.path, self.headers.get("Authorization", "")))
        self.send_response(302)
        self.send_header("Location", _Redirect.target)
        self.end_headers()

    def do_GET(self) -> None:
        _Redirect.seen.append(("GET", self.path, self.headers.get("Authorization", "")))
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def redirecting() -> Iterator[str]:
    _Redirect.seen = []
    server = HTTPServer(("127.0.0.1", 0), _Redirect)
    _Redirect.target = f"http://127.0.0.1:{server.server_address[1]}/elsewhere"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_webhooks_redirect_is_not_followed(redirecting: str) -> None:
    hook = make_webhook_hook(Settings({"url": f"{redirecting}/hook/SECRETPATH", "token": "SECRETTOKEN"}, "t.yaml",
                                      what="hook", line=1), _env(poster=UrllibPoster()))
    res = hook.run(_call(Action.NOTIFY, "n1"))
    assert res.status is Status.FAILED and "HTTP 302" in res.detail and "redirect" in res.detail
    assert [(m, p) for m, p, _a in _Redirect.seen] == [("POST", "/hook/SECRETPATH")]  # no GET to the target


def test_a_sidecar_state_database_on_a_full_disk_keeps_the_state_in_memory(tmp_path: Path) -> None:
    """A full disk (or an I/O error) when the watch opens its state database stopped it with a
    traceback; it now watches on with the state in memory, as when the disk fills while it runs."""
    def full(target: str, **kw: Any) -> sqlite3.Connection:
        if target != ":memory:":
            raise sqlite3.OperationalError("database or disk is full")
        return sqlite3.connect(target, **kw)

    said: list[str] = []
    store = SidecarStore(tmp_path / "state", warn=said.append, connect=full)
    assert not store.persistent and said and "state kept in memory" in said[0] and "disk is full" in said[0]
    store.set_meta("episode_start", "1.0")
    assert store.get_meta("episode_start") == "1.0"


def test_a_command_hooks_program_holds_no_placeholder() -> None:
    """`argv: ["{node}"]` made the program to run a node name read from a log (a hostile tester)."""
    from detector.errors import ConfigError
    from detector.remediation.hooks.command import make_command_hook

    with pytest.raises(ConfigError, match="may not hold a placeholder"):
        make_command_hook(Settings({"argv": ["{node}", "--drain"]}, "t.yaml", what="hook", line=1), _env())
    assert make_command_hook(Settings({"argv": ["/usr/local/bin/page", "{node}"]}, "t.yaml", what="hook", line=1),
                             _env()) is not None
