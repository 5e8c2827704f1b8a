"""The ``slurm`` hook: drain the node with a reason, resubmit the job (requeue or sbatch).

Commands (argument lists, never a shell)::

    scontrol update NodeName=<node> State=DRAIN Reason=rankdoctor: <cause> <incident>
    scontrol requeue <job>                                   # resubmit: requeue
    scancel <job>; sbatch --parsable --exclude=<node> … <script> [args] [resume args]
                                                             # resubmit: sbatch

With ``resubmit: sbatch`` and no ``script``, the job's own script (``Command`` of ``scontrol show
job``) is resubmitted only when the job belongs to the user rankdoctor runs as: sbatch submits
as the caller, so a root coordinator would otherwise run a user's script as root.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from detector.remediation.exec.argv import JOB_ID_RE, valid_job_id
from detector.remediation.exec.process import CommandResult, remaining
from detector.remediation.exec.templates import check_template, render
from detector.remediation.hooks.base import HookEnv
from detector.remediation.model import (
    Action,
    Command,
    HookCall,
    HookResult,
    JobFacts,
    Status,
)
from detector.support.hosts import expand_hostlist, same_host
from detector.support.settings import Settings

RESUBMIT_MODES = ("requeue", "sbatch", "none")
RESUME_PLACEHOLDERS = ("checkpoint", "checkpoint_step")
_SBATCH_ID = re.compile(r"^(\d+(?:_\d+)?)(?:;\S*)?$")
_OWNER_UID = re.compile(r"\((\d+)\)$")  # UserId=alice(1000)


_NODE_LIST = re.compile(r"(?:^|\s)NodeList=(\S+)", re.MULTILINE)


def parse_show(text: str) -> dict[str, str]:
    """``scontrol show … -o`` output (``Key=Value`` tokens) as a dict."""
    out: dict[str, str] = {}
    for token in text.split():
        key, sep, value = token.partition("=")
        if sep and key not in out:
            out[key] = value
    return out


class SlurmHook:
    def __init__(
        self,
        env: HookEnv,
        *,
        name: str = "slurm",
        job_id: str | None,
        resubmit: str = "requeue",
        drain: bool = True,
        script: str | None = None,
        script_args: tuple[str, ...] = (),
        sbatch_args: tuple[str, ...] = (),
        resume_args: tuple[str, ...] = (),
        cancel_old: bool = True,
        scontrol: str = "scontrol",
        sbatch: str = "sbatch",
        scancel: str = "scancel",
        uid: int | None = None,
    ) -> None:
        if resubmit not in RESUBMIT_MODES:
            raise ValueError(f"resubmit must be one of {RESUBMIT_MODES}")
        if job_id is not None and not valid_job_id(job_id):
            raise ValueError(f"invalid Slurm job id {job_id!r}")
        self._env = env
        self._name = name
        self.job_id = job_id
        self.resubmit = resubmit
        self._script = script
        self._script_args = script_args
        self._sbatch_args = sbatch_args
        self._resume_args = resume_args
        self._cancel_old = cancel_old
        self._scontrol = scontrol
        self._sbatch = sbatch
        self._scancel = scancel
        self._uid = os.getuid() if uid is None else uid  # who sbatch submits as
        self._script_refused: str | None = None
        acts = set()
        if drain:
            acts.add(Action.DRAIN)
        if resubmit != "none":
            acts.add(Action.RESUBMIT)
        self._actions = frozenset(acts)

    @property
    def name(self) -> str:
        return self._name

    @property
    def actions(self) -> frozenset[Action]:
        return self._actions

    # --- commands ---

    def drain_command(self, node: str, reason: str) -> Command:
        return (self._scontrol, "update", f"NodeName={node}", "State=DRAIN", f"Reason={reason}")

    def _resubmit_commands(self, call: HookCall, script: str) -> tuple[Command, ...]:
        assert self.job_id is not None
        if self.resubmit == "requeue":
            return ((self._scontrol, "requeue", self.job_id),)
        values = {
            "checkpoint": call.checkpoint.path if call.checkpoint else None,
            "checkpoint_step": (str(call.checkpoint.step)
                                if call.checkpoint and call.checkpoint.step is not None else None),
        }
        resume = render(self._resume_args, values) if call.checkpoint else ()
        exclude = (f"--exclude={call.node}",) if call.node else ()
        sbatch = (self._sbatch, "--parsable", *exclude, *self._sbatch_args, script,
                  *self._script_args, *resume)
        if self._cancel_old:
            return ((self._scancel, self.job_id), sbatch)
        return (sbatch,)

    def _run(self, argv: Command, call: HookCall,
             env: Mapping[str, str] | None = None) -> CommandResult:
        return self._env.runner(argv, env=env,
                                timeout=remaining(call.deadline, self._env.clock.monotonic()))

    def _show_job(self, deadline: float) -> dict[str, str]:
        if self.job_id is None:
            return {}
        res = self._env.runner((self._scontrol, "show", "job", "-o", self.job_id),
                               timeout=remaining(deadline, self._env.clock.monotonic()))
        return parse_show(res.stdout) if res.ok else {}

    def _script_for(self, call: HookCall) -> str | None:
        if self._script is not None:
            return self._script
        fields = self._show_job(call.deadline)
        owner = _OWNER_UID.search(fields.get("UserId", ""))
        if owner is not None and int(owner.group(1)) != self._uid:
            # sbatch would run the job owner's own script with rankdoctor's rights (root, or
            # the Slurm user): a privilege escalation for whoever owns the job
            self._script_refused = (f"job {self.job_id} belongs to uid {owner.group(1)}, not to the uid "
                                    f"rankdoctor runs as ({self._uid}): not resubmitting its script as "
                                    "that user (use resubmit: requeue, or set 'script')")
            return None
        command = fields.get("Command", "")
        return command if command.startswith("/") else None  # an absolute path, or nothing

    # --- the protocol ---

    def _foreign_node(self, call: HookCall, node: str) -> HookResult | None:
        """A refusal where the job is known and ``node`` is none of its nodes: a node name read
        from log text (which the job's own output can print) must not drain another job's node."""
        if self.job_id is None:
            return None
        res = self._env.runner((self._scontrol, "show", "job", "-o", self.job_id),
                               timeout=remaining(call.deadline, self._env.clock.monotonic()))
        # (a heterogeneous job's components, one line each: every component's nodes are the job's)
        lists = [m.group(1) for m in _NODE_LIST.finditer(res.stdout)] if res.ok else []
        nodes = [n for listed in lists if not listed.startswith("(") for n in expand_hostlist(listed)]
        if not nodes or any(same_host(node, n) for n in nodes):
            return None
        listed = ",".join(lists)
        return HookResult(Status.FAILED, f"{node} is not one of job {self.job_id}'s nodes ({listed[:200]}): "
                                         "not drained")

    def plan(self, call: HookCall) -> HookResult:
        if call.action is Action.DRAIN and call.node:
            refused = self._foreign_node(call, call.node)
            if refused is not None:
                return refused
            return HookResult(Status.DRY_RUN, f"would drain {call.node}",
                              (self.drain_command(call.node, call.reason),))
        if call.action is Action.RESUBMIT and self.job_id is not None:
            script = "<job script>"
            if self.resubmit == "sbatch":
                script = self._script_for(call) or f"<script of job {self.job_id}>"
            return HookResult(Status.DRY_RUN, f"would {self.resubmit} job {self.job_id}",
                              self._resubmit_commands(call, script), job_id=self.job_id)
        return HookResult(Status.SKIPPED, f"nothing to do for {call.action}")

    def run(self, call: HookCall) -> HookResult:
        if call.action is Action.DRAIN and call.node:
            return self._drain(call, call.node)
        if call.action is Action.RESUBMIT and self.job_id is not None:
            if self.resubmit == "requeue":
                return self._requeue(call)
            return self._submit(call)
        return HookResult(Status.SKIPPED, f"nothing to do for {call.action}")

    def _drain(self, call: HookCall, node: str) -> HookResult:
        refused = self._foreign_node(call, node)
        if refused is not None:
            return refused
        argv = self.drain_command(node, call.reason)
        res = self._run(argv, call)
        if not res.ok:
            return HookResult(Status.FAILED, f"drain of {node} failed: {res.summary()}", (argv,))
        show = (self._scontrol, "show", "node", "-o", node)
        state = parse_show(self._run(show, call).stdout).get("State", "")
        if "DRAIN" not in state:
            return HookResult(Status.FAILED, f"{node} is {state or 'unknown'} after the drain",
                              (argv, show))
        return HookResult(Status.OK, f"{node} is {state}", (argv, show))

    def _requeue(self, call: HookCall) -> HookResult:
        assert self.job_id is not None
        argv = (self._scontrol, "requeue", self.job_id)
        res = self._run(argv, call)
        if res.ok:
            return HookResult(Status.OK, f"requeued job {self.job_id}", (argv,),
                              job_id=self.job_id)
        state = self._show_job(call.deadline).get("JobState", "")
        if state in ("PENDING", "REQUEUED", "REQUEUE_FED"):
            return HookResult(Status.OK, f"job {self.job_id} is already {state}", (argv,),
                              job_id=self.job_id)
        return HookResult(Status.FAILED, f"requeue of job {self.job_id} failed: {res.summary()}",
                          (argv,))

    def _submit(self, call: HookCall) -> HookResult:
        self._script_refused = None
        script = self._script_for(call)
        if script is None:
            return HookResult(Status.FAILED, self._script_refused or (
                f"no script to resubmit job {self.job_id} (set 'script' or keep the job known to scontrol)"))
        commands = self._resubmit_commands(call, script)
        env: dict[str, str] = {}
        if call.checkpoint is not None:
            env["RANKDOCTOR_RESUME_FROM"] = call.checkpoint.path
            if call.checkpoint.step is not None:
                env["RANKDOCTOR_RESUME_STEP"] = str(call.checkpoint.step)
        notes = []
        for argv in commands[:-1]:  # scancel: a job that already ended is fine
            res = self._run(argv, call)
            if not res.ok:
                notes.append(f"{argv[0]}: {res.summary()}")
        res = self._run(commands[-1], call, env)
        match = _SBATCH_ID.match(res.stdout.strip().splitlines()[0] if res.stdout.strip() else "")
        if not res.ok or match is None:
            return HookResult(Status.FAILED, f"sbatch failed: {res.summary()}", commands)
        new_id = match.group(1)
        detail = f"submitted job {new_id} excluding {call.node}" + (
            f" ({'; '.join(notes)})" if notes else "")
        return HookResult(Status.OK, detail, commands, job_id=new_id)

    # --- JobInspector ---

    def inspect_job(self, deadline: float) -> JobFacts:
        if self.job_id is None:
            return JobFacts()
        fields = self._show_job(deadline)
        nodes = fields.get("NumNodes", "")
        logs = tuple(dict.fromkeys(
            p for p in (fields.get("StdOut"), fields.get("StdErr")) if p and p.startswith("/")))
        return JobFacts(key=f"slurm:{self.job_id}", job_id=self.job_id,
                        nodes=int(nodes) if nodes.isdigit() else None, logs=logs)


def make_slurm_hook(settings: Settings, env: HookEnv) -> SlurmHook:
    job_id = settings.get_str("job_id", None, pattern=JOB_ID_RE)
    resubmit = settings.get_str("resubmit", "requeue", choices=RESUBMIT_MODES)
    hook = SlurmHook(
        env,
        job_id=job_id,
        resubmit=resubmit,
        drain=settings.get_bool("drain", True),
        script=settings.get_str("script", None),
        script_args=settings.get_str_list("script_args"),
        sbatch_args=settings.get_str_list("sbatch_args"),
        resume_args=check_template(settings, "resume_args", settings.get_str_list("resume_args"),
                                   RESUME_PLACEHOLDERS),
        cancel_old=settings.get_bool("cancel_old", True),
        scontrol=settings.get_str("scontrol", "scontrol"),
        sbatch=settings.get_str("sbatch", "sbatch"),
        scancel=settings.get_str("scancel", "scancel"),
    )
    settings.done()  # unknown keys first: a typo of job_id is reported as such
    if job_id is None:
        from_env = env.environ.get("SLURM_JOB_ID")
        if from_env is not None and not valid_job_id(from_env):
            raise settings.error("job_id", f"SLURM_JOB_ID={from_env!r} is not a job id")
        if resubmit != "none" and from_env is None:
            raise settings.error("job_id", "is not set and SLURM_JOB_ID is not in the "
                                           "environment (needed to resubmit; or set resubmit: "
                                           "none)")
        hook.job_id = from_env
    return hook
