"""The ``command`` hook: run a site's program with an argument template.

The incident JSON goes to the program's stdin; ``RANKDOCTOR_*`` variables describe the call::

    RANKDOCTOR_ACTION      drain | resubmit | notify
    RANKDOCTOR_EVENT       decision | verification_failed
    RANKDOCTOR_INCIDENT_ID the incident id, reduced to [A-Za-z0-9._:-]
    RANKDOCTOR_CAUSE       a taxonomy value
    RANKDOCTOR_NODE        the initiating node (checked against the node-name pattern) or ""
    RANKDOCTOR_RANK        the initiating rank or ""
    RANKDOCTOR_CONFIDENCE  0.00–1.00
    RANKDOCTOR_REASON      "rankdoctor: <cause> <incident>"
    RANKDOCTOR_SUMMARY     one line: what was decided and done
    RANKDOCTOR_RESUME_FROM / RANKDOCTOR_RESUME_STEP   the checkpoint found, when there is one
    RANKDOCTOR_JOB_ID      the hook's job_id setting, when set

Placeholders in ``argv``: ``{node}`` ``{cause}`` ``{incident_id}`` ``{action}`` ``{event}``
``{rank}`` ``{confidence}`` ``{reason}`` ``{checkpoint}`` ``{checkpoint_step}`` ``{job_id}``.
"""

from __future__ import annotations

from detector.remediation.exec.argv import ENV_NAME_RE, JOB_ID_RE
from detector.remediation.exec.process import remaining
from detector.remediation.exec.templates import check_template, render
from detector.remediation.hooks.base import HookEnv
from detector.remediation.model import Action, HookCall, HookResult, Status
from detector.support.settings import Settings

PLACEHOLDERS = ("node", "cause", "incident_id", "action", "event", "rank", "confidence",
                "reason", "checkpoint", "checkpoint_step", "job_id")
ACTIONS = (Action.DRAIN.value, Action.RESUBMIT.value, Action.NOTIFY.value)


class CommandHook:
    def __init__(self, env: HookEnv, *, argv: tuple[str, ...], actions: frozenset[Action],
                 extra_env: dict[str, str] | None = None, job_id: str | None = None,
                 stdin: bool = True) -> None:
        self._env = env
        self._argv = argv
        self._actions = actions
        self._extra_env = dict(extra_env or {})
        self._job_id = job_id
        self._stdin = stdin

    @property
    def name(self) -> str:
        return "command"

    @property
    def actions(self) -> frozenset[Action]:
        return self._actions

    def values(self, call: HookCall) -> dict[str, str | None]:
        ini = call.incident.initiator
        ckpt = call.checkpoint
        return {
            "node": call.node,
            "cause": call.incident.cause.value,
            "incident_id": call.incident_token,
            "action": call.action.value,
            "event": call.event.value,
            "rank": str(ini.rank) if ini.rank is not None and ini.rank >= 0 else None,
            "confidence": f"{call.incident.confidence:.2f}",
            "reason": call.reason,
            "checkpoint": ckpt.path if ckpt else None,
            "checkpoint_step": str(ckpt.step) if ckpt and ckpt.step is not None else None,
            "job_id": self._job_id,
        }

    def environment(self, call: HookCall) -> dict[str, str]:
        values = self.values(call)
        env = dict(self._extra_env)
        for key in ("action", "event", "incident_id", "cause", "node", "rank", "confidence",
                    "reason", "job_id"):
            env[f"RANKDOCTOR_{key.upper()}"] = values[key] or ""
        env["RANKDOCTOR_SUMMARY"] = call.summary
        if call.checkpoint is not None:
            env["RANKDOCTOR_RESUME_FROM"] = values["checkpoint"] or ""
            env["RANKDOCTOR_RESUME_STEP"] = values["checkpoint_step"] or ""
        return env

    def plan(self, call: HookCall) -> HookResult:
        argv = render(self._argv, self.values(call))
        return HookResult(Status.DRY_RUN, f"would run {argv[0]}", (argv,))

    def run(self, call: HookCall) -> HookResult:
        argv = render(self._argv, self.values(call))
        res = self._env.runner(argv, env=self.environment(call),
                               stdin=call.incident_json if self._stdin else None,
                               timeout=remaining(call.deadline, self._env.clock.monotonic()))
        if res.timed_out:
            return HookResult(Status.TIMEOUT, f"{argv[0]} timed out", (argv,))
        if not res.ok:
            return HookResult(Status.FAILED, f"{argv[0]}: {res.summary()}", (argv,))
        return HookResult(Status.OK, f"{argv[0]}: exit 0", (argv,))


def make_command_hook(settings: Settings, env: HookEnv) -> CommandHook:
    argv = settings.get_str_list("argv")
    if not argv:
        raise settings.error("argv", "is required: the program and its arguments, as a list")
    check_template(settings, "argv", argv, PLACEHOLDERS)
    if "{" in argv[0]:
        # (the program itself would be a value from the incident: a node name read from a log)
        raise settings.error("argv", f"the program ({argv[0]!r}) may not hold a placeholder: name a fixed program "
                                     "and pass values as its arguments")
    names = settings.get_str_list("actions", (Action.NOTIFY.value,))
    for name in names:
        if name not in ACTIONS:
            raise settings.error("actions", f"unknown action {name!r} (known: "
                                            f"{', '.join(ACTIONS)})")
    extra_env = settings.get_str_map("env")
    for key in extra_env:
        if not ENV_NAME_RE.fullmatch(key) or key.startswith("RANKDOCTOR_"):
            raise settings.error("env", f"invalid variable name {key!r}")
    hook = CommandHook(
        env,
        argv=argv,
        actions=frozenset(Action(n) for n in names),
        extra_env=extra_env,
        job_id=settings.get_str("job_id", None, pattern=JOB_ID_RE),
        stdin=settings.get_bool("stdin", True),
    )
    settings.done()
    return hook
