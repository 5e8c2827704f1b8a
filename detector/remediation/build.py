"""Wiring: a validated config and the outside world (runner, clock, HTTP, environment) into a
:class:`Remediator`. Every hook is loaded and checked here, before anything runs."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from detector.errors import ConfigError
from detector.remediation.audit import AuditLog, Redactor
from detector.remediation.config import RemediationConfig
from detector.remediation.exec.process import CommandRunner, SubprocessRunner
from detector.remediation.hooks.base import HookEnv, HttpPoster
from detector.remediation.hooks.registry import EntryPoints, build_hooks, installed_entry_points
from detector.remediation.hooks.webhook import UrllibPoster
from detector.remediation.remediator import Remediator
from detector.remediation.state import RemediationStore
from detector.remediation.verify import ResumptionVerifier
from detector.support.clock import Clock, SystemClock


def open_state(cfg: RemediationConfig, clock: Clock | None = None,
               secrets: tuple[str, ...] = ()) -> tuple[RemediationStore, AuditLog]:
    """The state store and audit log alone (``--status``, ``--reset-breaker``). Raises
    ConfigError when the state dir or the audit log's folder cannot be used."""
    clock = clock or SystemClock()
    try:
        store = RemediationStore(cfg.state_db, clock)
        audit = AuditLog(cfg.audit_log, clock, Redactor(secrets))
    except (OSError, sqlite3.Error) as exc:
        raise ConfigError(cfg.path, None, f"remediation: cannot use state_dir {cfg.state_dir} "
                                          f"or audit_log {cfg.audit_log}: {exc}") from None
    if store.replaced is not None:  # a corrupt database was moved aside: on the record too
        audit.breaker("open", f"corrupt state database moved to {store.replaced}; claimed incidents and "
                              "budgets are forgotten, so only notifying until --reset-breaker", "rankdoctor")
    return store, audit


def build_remediator(
    cfg: RemediationConfig,
    *,
    environ: Mapping[str, str],
    act: bool | None = None,
    runner: CommandRunner | None = None,
    clock: Clock | None = None,
    poster: HttpPoster | None = None,
    entry_points: EntryPoints = installed_entry_points,
) -> Remediator:
    """``act``: None takes the config's ``act``. Raises ConfigError for a bad hook setting or
    plugin, naming the file and line."""
    clock = clock or SystemClock()
    env = HookEnv(runner=runner or SubprocessRunner(), clock=clock,
                  poster=poster or UrllibPoster(), environ=environ)
    hooks = build_hooks(cfg.hooks, env, entry_points)
    secrets = tuple(s for h in hooks for s in h.secrets)
    store, audit = open_state(cfg, clock, secrets)
    verifier = ResumptionVerifier(clock, step_pattern=cfg.verify.step_pattern,
                                  ignore_pattern=cfg.verify.ignore_pattern,
                                  poll_s=cfg.verify.poll_s)
    return Remediator(config=cfg, hooks=hooks, store=store, audit=audit, verifier=verifier,
                      clock=clock, act=cfg.act if act is None else act)
