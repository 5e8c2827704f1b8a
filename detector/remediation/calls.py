"""Calling a hook with a timeout and bounded retries, so that a hung hook blocks nothing.

Each call runs in a daemon thread; the caller waits at most the hook's ``timeout_s`` (plus a
short grace) and then records a timeout and moves on — a hook stuck in Python code is abandoned,
a command the hook started is killed by the runner's own timeout. Failures are retried up to
``retries`` times with a short backoff; a timed-out RESUBMIT is not retried, since it may have
taken effect (a second requeue would restart the job twice).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from detector.remediation.hooks.registry import BoundHook
from detector.remediation.model import Action, HookCall, HookOutcome, HookResult, Status
from detector.support.clock import Clock

GRACE_S = 0.5
MAX_BACKOFF_S = 5.0


def _into(box: list[object], fn: Callable[[], object]) -> None:
    """Thread body: the result of ``fn()``, or the exception it raised, into ``box``."""
    try:
        box.append(fn())
    except BaseException as exc:  # a hook's exception is recorded, not raised
        box.append(exc)


def _in_thread(fn: Callable[[], object], timeout_s: float, name: str) -> list[object]:
    """Run ``fn`` in a daemon thread; return ``[result]`` or ``[]`` if it did not finish."""
    box: list[object] = []
    thread = threading.Thread(target=_into, args=(box, fn), name=name, daemon=True)
    thread.start()
    thread.join(timeout_s + GRACE_S)
    return box


def _attempt(bound: BoundHook, call: HookCall, dry_run: bool, timeout_s: float) -> HookResult:
    fn = bound.hook.plan if dry_run else bound.hook.run
    box = _in_thread(partial(fn, call), timeout_s, f"rankdoctor-hook-{bound.label}")
    if not box:
        return HookResult(Status.TIMEOUT, f"no answer within {timeout_s:g} s (abandoned)")
    value = box[0]
    if isinstance(value, BaseException):
        return HookResult(Status.FAILED, f"raised {type(value).__name__}: {value}")
    if not isinstance(value, HookResult):
        return HookResult(Status.FAILED, f"returned {type(value).__name__}, not a HookResult")
    return value


def call_hook(bound: BoundHook, call: HookCall, *, dry_run: bool, clock: Clock) -> HookOutcome:
    """Run (or plan) one hook call; each attempt gets its own deadline."""
    attempts = 0
    result = HookResult(Status.SKIPPED)
    action = call.action
    for attempt in range(bound.retries + 1):
        attempts = attempt + 1
        timed = replace(call, deadline=clock.monotonic() + bound.timeout_s)
        result = _attempt(bound, timed, dry_run, bound.timeout_s)
        if result.status not in (Status.FAILED, Status.TIMEOUT) or dry_run:
            break
        if result.status is Status.TIMEOUT and action is Action.RESUBMIT:
            break
        if attempt < bound.retries:
            clock.sleep(min(MAX_BACKOFF_S, 0.5 * 2**attempt))
    if attempts > 1:
        result = replace(result, detail=f"{result.detail} (after {attempts} attempts)")
    return HookOutcome(bound.label, action, result, attempts)


def inspect_with_timeout(fn: Callable[[], object], timeout_s: float) -> object | None:
    """Run a read-only lookup in a daemon thread; None when it fails or takes too long."""
    box = _in_thread(fn, timeout_s, "rankdoctor-inspect")
    return box[0] if box and not isinstance(box[0], BaseException) else None
