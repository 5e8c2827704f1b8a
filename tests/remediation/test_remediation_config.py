"""The remediation: section and hook loading (built-in table, entry-point plugins)."""

from __future__ import annotations

import importlib.metadata
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from detector.errors import ConfigError
from detector.remediation.build import build_remediator
from detector.remediation.config import load_remediation_config
from detector.remediation.hooks.base import HookEnv, RemediationHook
from detector.remediation.hooks.registry import BUILTIN_HOOKS
from detector.remediation.model import Action, HookCall, HookResult, Status
from detector.support.settings import Settings
from tests.support.remediation import FakeClock, FakePoster, FakeRunner, config_from_yaml


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rankdoctor.yaml"
    path.write_text(text)
    return path


def test_defaults_and_the_issue_example(tmp_path: Path) -> None:
    cfg = load_remediation_config(write(tmp_path, """\
sources: {anything: goes}       # other sections belong to other parts
remediation:
  act: true
  state_dir: state
  audit_log: /tmp/rd-audit.jsonl
  budget: {max_drains_per_hour: 2, max_drain_fraction: 0.25}
  hooks:
    - type: slurm
      job_id: "1234"
      resubmit: requeue
"""), environ={})
    assert cfg.act is True
    assert cfg.state_dir == tmp_path / "state"
    assert cfg.audit_log == Path("/tmp/rd-audit.jsonl")
    assert cfg.min_confidence == 0.6
    assert cfg.verify.deadline_s == 900.0
    assert [h.type for h in cfg.hooks] == ["slurm"]
    empty = config_from_yaml("remediation: {}\n", tmp_path)
    assert empty.act is False and empty.budget.max_drains_per_hour == 2
    assert empty.budget.max_drain_fraction == 0.25


@pytest.mark.parametrize(("text", "line", "words"), [
    ("remediation:\n  act: true\n  dry: 1\n", 3, "remediation.dry: unknown key"),
    ("remediation:\n  budget:\n    max_drains_per_hour: two\n", 3, "must be an integer"),
    ("remediation:\n  budget: {max_drain_fraction: 2}\n", 2, "at most 1.0"),
    ("remediation:\n  min_confidence: high\n", 2, "must be a number"),
    ("remediation:\n  verify: {step_pattern: 'step (\\d+)'}\n", 2, "(?P<step>"),
    ("remediation:\n  hook_retries: 50\n", 2, "at most 5"),
    ("remediation:\n  hooks:\n    - resubmit: requeue\n", 3, "type: is required"),
    ("remediation:\n  hooks:\n    - {type: webhook, url: 'http://x'}\n"
     "    - {type: webhook, url: 'http://y'}\n", 4, "two hooks are named 'webhook'"),
])
def test_bad_config_names_file_and_line(tmp_path: Path, text: str, line: int, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_remediation_config(write(tmp_path, text), environ={})
    assert info.value.line == line, info.value
    assert words in str(info.value)
    assert str(info.value).startswith(f"{tmp_path / 'rankdoctor.yaml'}:{line}")


def test_missing_section(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no 'remediation:' section"):
        load_remediation_config(write(tmp_path, "sources: {}\n"), environ={})


def build(tmp_path: Path, hooks_yaml: str, environ: dict[str, str] | None = None,
          entry_points: list[importlib.metadata.EntryPoint] | None = None) -> None:
    cfg = config_from_yaml(f"remediation:\n  state_dir: {tmp_path}\n  hooks:\n{hooks_yaml}",
                           tmp_path, environ)
    build_remediator(cfg, environ=environ or {}, runner=FakeRunner(), clock=FakeClock(),
                     poster=FakePoster(), entry_points=lambda: entry_points or [])


@pytest.mark.parametrize(("hooks", "words"), [
    ("    - {type: slurm, job_id: '12;rm'}\n", "does not match"),
    ("    - {type: slurm, resubmit: maybe, job_id: '1'}\n", "must be one of requeue"),
    ("    - {type: slurm}\n", "SLURM_JOB_ID is not in the environment"),
    ("    - {type: slurm, job_id: '1', exlude: n1}\n", "exlude: unknown key"),
    ("    - {type: slurm, job_id: '1', resubmit: sbatch, resume_args: ['{ckpt}']}\n",
     "unknown placeholder {ckpt}"),
    ("    - {type: kubernetes, namespace: Bad_NS, selector: 'app=x'}\n", "does not match"),
    ("    - {type: kubernetes, namespace: train}\n", "selector: is required"),
    ("    - {type: command, argv: 'drain.sh {node}'}\n", "not one string"),
    ("    - {type: command, argv: ['x', '{node.__class__}']}\n", "unknown placeholder"),
    ("    - {type: command, argv: ['x'], actions: [reboot]}\n", "unknown action 'reboot'"),
    ("    - {type: webhook, url: 'ftp://x'}\n", "http:// or https://"),
    ("    - {type: webhook, url_env: HOOK_URL}\n", "HOOK_URL is not set"),
    ("    - {type: checkpoint}\n", "dir: is required"),
    ("    - {type: checkpoint, dir: /c, step_regex: '('}\n", "invalid regular expression"),
    ("    - {type: pagerduty}\n", "unknown hook type 'pagerduty' (known: checkpoint, command, "
                                 "kubernetes, slurm, webhook)"),
])
def test_bad_hook_settings_are_refused_at_load(tmp_path: Path, hooks: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        build(tmp_path, hooks)
    assert words in str(info.value)
    assert info.value.line == 4


def test_slurm_job_id_defaults_to_the_environment(tmp_path: Path) -> None:
    build(tmp_path, "    - {type: slurm}\n", environ={"SLURM_JOB_ID": "4321"})
    with pytest.raises(ConfigError, match="SLURM_JOB_ID='x' is not a job id"):
        build(tmp_path, "    - {type: slurm}\n", environ={"SLURM_JOB_ID": "x"})


def test_every_builtin_is_in_the_table() -> None:
    assert set(BUILTIN_HOOKS) == {"slurm", "kubernetes", "command", "webhook", "checkpoint"}


# --- plugins from the entry-point group ---


class PagerHook:
    def __init__(self, settings: Settings) -> None:
        self.route = settings.get_str("route")
        settings.done()

    @property
    def name(self) -> str:
        return "pager"

    @property
    def actions(self) -> frozenset[Action]:
        return frozenset({Action.NOTIFY})

    def plan(self, call: HookCall) -> HookResult:
        return HookResult(Status.DRY_RUN, f"would page {self.route}")

    def run(self, call: HookCall) -> HookResult:
        return HookResult(Status.OK, f"paged {self.route}")


def make_pager(settings: Settings, env: HookEnv) -> RemediationHook:
    return PagerHook(settings)


def make_not_a_hook(settings: Settings, env: HookEnv) -> object:
    return object()


class BadActions(PagerHook):
    def __init__(self) -> None:
        self.route = "x"

    @property
    def actions(self) -> frozenset[Action]:
        return frozenset({"notify"})  # type: ignore[arg-type]  # the mistake under test


def make_bad_actions(settings: Settings, env: HookEnv) -> object:
    return BadActions()


@pytest.fixture
def plugin_module() -> Iterator[str]:
    mod = types.ModuleType("rd_test_plugins")
    mod.make_pager = make_pager  # type: ignore[attr-defined]
    mod.make_not_a_hook = make_not_a_hook  # type: ignore[attr-defined]
    mod.make_bad_actions = make_bad_actions  # type: ignore[attr-defined]
    mod.not_callable = 42  # type: ignore[attr-defined]
    sys.modules["rd_test_plugins"] = mod
    yield "rd_test_plugins"
    del sys.modules["rd_test_plugins"]


def ep(name: str, value: str) -> importlib.metadata.EntryPoint:
    return importlib.metadata.EntryPoint(name=name, value=value, group="rankdoctor.hooks")


def test_a_plugin_loads_from_the_entry_point_group(tmp_path: Path, plugin_module: str) -> None:
    build(tmp_path, "    - {type: pager, route: oncall}\n",
          entry_points=[ep("pager", f"{plugin_module}:make_pager")])
    with pytest.raises(ConfigError, match=r"remediation.hooks\[0\].rout: unknown key"):
        build(tmp_path, "    - {type: pager, route: oncall, rout: x}\n",
              entry_points=[ep("pager", f"{plugin_module}:make_pager")])


@pytest.mark.parametrize(("value", "words"), [
    ("rd_no_such_module:make", "hook plugin 'site' (rd_no_such_module:make) failed to load: "
                               "ModuleNotFoundError"),
    ("rd_test_plugins:not_callable", "hook plugin 'site' (rd_test_plugins:not_callable) is not "
                                     "callable"),
    ("rd_test_plugins:make_not_a_hook", "returned object, not a RemediationHook (missing: name, "
                                        "actions, plan, run)"),
    ("rd_test_plugins:make_bad_actions", "'actions' must be a non-empty frozenset of Action"),
])
def test_a_bad_plugin_is_refused_with_its_name(tmp_path: Path, plugin_module: str, value: str,
                                               words: str) -> None:
    with pytest.raises(ConfigError) as info:
        build(tmp_path, "    - {type: site}\n", entry_points=[ep("site", value)])
    assert words in str(info.value)
    assert info.value.line == 4


def test_a_plugin_cannot_replace_a_builtin(tmp_path: Path) -> None:
    # the table wins; the broken entry point named like a built-in is never loaded
    build(tmp_path, "    - {type: webhook, url: 'https://hooks.example.com/T/B/X'}\n",
          entry_points=[ep("webhook", "rd_no_such_module:make")])
