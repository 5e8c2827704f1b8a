"""The remediation hook protocol: the contract for built-in hooks and site plugins.

A plugin is a factory registered in the entry-point group ``rankdoctor.hooks``::

    [project.entry-points."rankdoctor.hooks"]
    mysite = "mysite.rankdoctor:make_hook"

called as ``make_hook(settings, env)`` with the hook's config entry (:class:`Settings`; read every
key, then call ``settings.done()``) and a :class:`HookEnv`; it returns a :class:`RemediationHook`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from detector.remediation.exec.process import CommandRunner
from detector.remediation.model import Action, HookCall, HookResult, JobFacts
from detector.support.clock import Clock
from detector.support.settings import Settings


@runtime_checkable
class RemediationHook(Protocol):
    """One way of acting on an incident (a scheduler, a script, a pager).

    Contract:

    - ``name``: a short label used in records and messages.
    - ``actions``: the :class:`Action` steps this hook takes part in. For each incident the
      remediator calls, in order, every hook for CHECKPOINT, then DRAIN, then RESUBMIT, then
      NOTIFY, and only for the steps the policy decided on (NOTIFY always).
    - ``plan(call)``: what ``run`` would do, **without side effects** (dry-run). Return status
      ``DRY_RUN`` and the argument lists in ``commands``. Read-only lookups are allowed.
    - ``run(call)``: do it. Return ``OK`` or ``FAILED`` with a one-line ``detail``; never raise
      for an expected failure (an exception is recorded as a failure). Return before
      ``call.deadline`` (a ``clock.monotonic()`` value): the remediator stops waiting then and
      records a timeout, and may retry a DRAIN or NOTIFY (so make those idempotent).
    - Commands are argument lists run through the injected :class:`CommandRunner`, never a shell.
      Only ``call.node``, ``call.reason``, ``call.incident_token`` (checked or reduced to a safe
      character set) and the hook's own validated settings may go into argv; the incident and
      its log text (``call.incident``, ``call.incident_json``) are data for stdin or a body.
    - A CHECKPOINT hook returns the checkpoint in ``HookResult.checkpoint`` (and what it passed
      over in ``skipped``); later calls receive it in ``call.checkpoint``.
    - A RESUBMIT hook returns the id of the job that now runs in ``HookResult.job_id``.
    - Secrets (tokens, URLs with keys) are read with ``settings.get_secret`` and never appear in
      ``detail`` or ``commands``.
    """

    @property
    def name(self) -> str: ...

    @property
    def actions(self) -> frozenset[Action]: ...

    def plan(self, call: HookCall) -> HookResult: ...

    def run(self, call: HookCall) -> HookResult: ...


@runtime_checkable
class JobInspector(Protocol):
    """Optional, for scheduler hooks: what the job is (for the drain budget and verification).

    ``inspect_job`` is read-only and returns by ``deadline`` (a ``clock.monotonic()`` value)."""

    def inspect_job(self, deadline: float) -> JobFacts: ...


class HttpPoster(Protocol):
    def __call__(self, url: str, body: bytes, headers: Mapping[str, str],
                 timeout: float) -> int:
        """POST ``body``; return the HTTP status. Raise OSError on a network failure."""
        ...


@dataclass(frozen=True)
class HookEnv:
    """What the outside world gives a hook; tests pass fakes."""

    runner: CommandRunner
    clock: Clock
    poster: HttpPoster
    environ: Mapping[str, str]  # the process environment, for defaults like SLURM_JOB_ID


HookFactory = Callable[[Settings, HookEnv], RemediationHook]
