"""The ``remediation:`` section of the config file, validated up front (unknown keys refused).

```yaml
remediation:
  act: false                     # dry-run unless true (or --act)
  state_dir: /var/lib/rankdoctor # SQLite state: handled incidents, drains, breaker
  audit_log: /var/log/rankdoctor/audit.jsonl   # default: <state_dir>/audit.jsonl
  min_confidence: 0.6            # below: notify only
  hook_timeout_s: 30             # per hook call; a hook may set its own timeout_s
  hook_retries: 1                # extra attempts after a failure; a hook may set retries
  budget: {max_drains_per_hour: 2, max_drain_fraction: 0.25, job_nodes: null}
  verify: {deadline_s: 900, poll_s: 1, logs: [], step_pattern: …, ignore_pattern: …}
  hooks:
    - type: slurm                # or kubernetes, command, webhook, checkpoint, a plugin name
      name: slurm                # label in records (default: the type)
      …                          # the hook's own keys
```
Relative paths are taken from the config file's folder.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from detector.errors import ConfigError
from detector.remediation.hooks.registry import HookSpec
from detector.support.settings import Settings
from detector.support.yamlfile import YamlMap, load_yaml_file

DEFAULT_STATE_DIR = "/var/lib/rankdoctor"
# "step 12 |", "global_step=12", "Step: 12" — but not "fault_step" or "steps".
DEFAULT_STEP_PATTERN = r"(?i)(?<![\w.-])(?:global[_ ])?step[\s=:#]+(?P<step>\d+)\b"
# Lines about checkpoints name the checkpoint's step, which is not progress.
DEFAULT_IGNORE_PATTERN = r"(?i)checkpoint|resum|restor|loading"


@dataclass(frozen=True, slots=True)
class BudgetConfig:
    max_drains_per_hour: int = 2
    max_drain_fraction: float = 0.25
    job_nodes: int | None = None  # the job's node count when the scheduler cannot tell


@dataclass(frozen=True, slots=True)
class VerifyConfig:
    enabled: bool = True
    deadline_s: float = 900.0
    poll_s: float = 1.0
    logs: tuple[str, ...] = ()  # globs; {job_id} is replaced by the resubmitted job's id
    step_pattern: str = DEFAULT_STEP_PATTERN
    ignore_pattern: str | None = DEFAULT_IGNORE_PATTERN


@dataclass(frozen=True)
class RemediationConfig:
    path: str
    act: bool = False
    state_dir: Path = Path(DEFAULT_STATE_DIR)
    audit_log: Path = Path(DEFAULT_STATE_DIR) / "audit.jsonl"
    min_confidence: float = 0.6
    budget: BudgetConfig = BudgetConfig()
    verify: VerifyConfig = VerifyConfig()
    hooks: tuple[HookSpec, ...] = ()

    @property
    def state_db(self) -> Path:
        return self.state_dir / "state.sqlite3"


def _path(value: str, base: Path) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else base / p


def _regex(settings: Settings, key: str, value: str, group: str | None = None) -> str:
    try:
        compiled = re.compile(value)
    except re.error as exc:
        raise settings.error(key, f"invalid regular expression: {exc}") from None
    if group is not None and group not in compiled.groupindex:
        raise settings.error(key, f"needs a named group (?P<{group}>…)")
    return value


def _budget(s: Settings) -> BudgetConfig:
    out = BudgetConfig(
        max_drains_per_hour=s.get_int("max_drains_per_hour", 2, minimum=0),
        max_drain_fraction=s.get_float("max_drain_fraction", 0.25, minimum=0.0, maximum=1.0),
        job_nodes=s.get_int("job_nodes", None, minimum=1),
    )
    s.done()
    return out


def _verify(s: Settings) -> VerifyConfig:
    step = _regex(s, "step_pattern", s.get_str("step_pattern", DEFAULT_STEP_PATTERN), "step")
    ignore = s.get_str("ignore_pattern", DEFAULT_IGNORE_PATTERN)
    out = VerifyConfig(
        enabled=s.get_bool("enabled", True),
        deadline_s=s.get_float("deadline_s", 900.0, minimum=1.0),
        poll_s=s.get_float("poll_s", 1.0, minimum=0.01, maximum=60.0),
        logs=s.get_str_list("logs"),
        step_pattern=step,
        ignore_pattern=_regex(s, "ignore_pattern", ignore) if ignore else None,
    )
    s.done()
    return out


def _hook_spec(s: Settings, timeout_s: float, retries: int) -> HookSpec:
    kind = s.get_str("type", pattern=re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}"))
    return HookSpec(
        type=kind,
        label=s.get_str("name", kind),
        timeout_s=s.get_float("timeout_s", timeout_s, minimum=0.1, maximum=3600.0),
        retries=s.get_int("retries", retries, minimum=0),
        settings=s,
    )


def parse_remediation(section: Any, path: str, *, base_dir: Path,
                      environ: Mapping[str, str], line: int | None = None) -> RemediationConfig:
    """Validate the value of the ``remediation:`` key. Hook settings are checked when the hooks
    are built (:func:`detector.remediation.build.build_remediator`)."""
    s = Settings(section if section is not None else {}, path, what="remediation", line=line,
                 environ=environ)
    state_dir = _path(s.get_str("state_dir", DEFAULT_STATE_DIR), base_dir)
    audit = s.get_str("audit_log", None)
    timeout_s = s.get_float("hook_timeout_s", 30.0, minimum=0.1, maximum=3600.0)
    retries = s.get_int("hook_retries", 1, minimum=0)
    if retries > 5:
        raise s.error("hook_retries", "must be at most 5 (retries are bounded)")
    hooks = tuple(_hook_spec(h, timeout_s, retries) for h in s.get_sections("hooks"))
    for i, spec in enumerate(hooks):
        if spec.label in (h.label for h in hooks[:i]):
            raise spec.settings.error("name", f"two hooks are named {spec.label!r}; give each "
                                              "a distinct name")
        if spec.retries > 5:
            raise spec.settings.error("retries", "must be at most 5 (retries are bounded)")
    cfg = RemediationConfig(
        path=path,
        act=s.get_bool("act", False),
        state_dir=state_dir,
        audit_log=_path(audit, base_dir) if audit else state_dir / "audit.jsonl",
        min_confidence=s.get_float("min_confidence", 0.6, minimum=0.0, maximum=1.0),
        budget=_budget(s.get_section("budget")),
        verify=_verify(s.get_section("verify")),
        hooks=hooks,
    )
    s.done()
    return cfg


def load_remediation_config(path: Path, *, environ: Mapping[str, str]) -> RemediationConfig:
    """Read a config file and validate its ``remediation:`` section. Other top-level sections
    belong to other parts of rankdoctor and are validated there."""
    data = load_yaml_file(path)
    name = str(path)
    if not isinstance(data, Mapping) or "remediation" not in data:
        raise ConfigError(name, 1, "no 'remediation:' section")
    line = data.pos["remediation"][0] if hasattr(data, "pos") else None
    section = data["remediation"]
    top = data.get("state_dir")
    if isinstance(section, Mapping) and "state_dir" not in section and isinstance(top, str) and top:
        # a watch's config: its remediation keeps its state in the watch's state folder
        # (detector.sidecar.service.build_remediation), so --status reads what the watch did
        given = section
        section = YamlMap(*given.where()) if isinstance(given, YamlMap) else {}
        section.update(given)
        section["state_dir"] = str(Path(top) / "remediation")
        if isinstance(given, YamlMap) and isinstance(section, YamlMap):  # (its keys' lines, for errors)
            section.pos.update(given.pos)
    return parse_remediation(section, name, base_dir=path.resolve().parent,
                             environ=environ, line=line)
