"""Hook types by name: an explicit table of the built-in hooks, plus plugins from the
entry-point group ``rankdoctor.hooks``.

Built-in names come from the table (an entry point with a built-in name is not consulted, so a
plugin cannot replace ``slurm`` behind the operator's back). A plugin that fails to import, is
not callable, raises, or returns something that is not a :class:`RemediationHook` is refused at
load, with its name and the config line in the message.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from detector.errors import ConfigError
from detector.remediation.hooks.base import HookEnv, HookFactory, JobInspector, RemediationHook
from detector.remediation.hooks.checkpoint import make_checkpoint_hook
from detector.remediation.hooks.command import make_command_hook
from detector.remediation.hooks.kubernetes import make_kubernetes_hook
from detector.remediation.hooks.slurm import make_slurm_hook
from detector.remediation.hooks.webhook import make_webhook_hook
from detector.remediation.model import Action
from detector.support.settings import Settings

ENTRY_POINT_GROUP = "rankdoctor.hooks"

BUILTIN_HOOKS: Mapping[str, HookFactory] = MappingProxyType({
    "slurm": make_slurm_hook,
    "kubernetes": make_kubernetes_hook,
    "command": make_command_hook,
    "webhook": make_webhook_hook,
    "checkpoint": make_checkpoint_hook,
})

EntryPoints = Callable[[], Iterable[importlib.metadata.EntryPoint]]


def installed_entry_points() -> list[importlib.metadata.EntryPoint]:
    return list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))


@dataclass(frozen=True)
class HookSpec:
    """One entry of ``remediation.hooks`` after the common keys were read."""

    type: str
    label: str
    timeout_s: float
    retries: int
    settings: Settings


@dataclass(frozen=True)
class BoundHook:
    """A loaded hook with its label and limits."""

    label: str
    hook: RemediationHook
    timeout_s: float
    retries: int
    secrets: tuple[str, ...] = ()

    @property
    def inspector(self) -> JobInspector | None:
        return self.hook if isinstance(self.hook, JobInspector) else None


def known_types(entry_points: Iterable[importlib.metadata.EntryPoint]) -> list[str]:
    return sorted(set(BUILTIN_HOOKS) | {ep.name for ep in entry_points})


def resolve_factory(spec: HookSpec, entry_points: EntryPoints) -> tuple[HookFactory, str]:
    """The factory for ``spec.type`` and a description of where it came from."""
    if spec.type in BUILTIN_HOOKS:
        return BUILTIN_HOOKS[spec.type], "built-in"
    eps = list(entry_points())
    matches = [ep for ep in eps if ep.name == spec.type]
    settings = spec.settings
    if not matches:
        raise settings.error("type", f"unknown hook type {spec.type!r} (known: "
                                     f"{', '.join(known_types(eps))})")
    ep = matches[0]
    origin = f"hook plugin {ep.name!r} ({ep.value})"
    if len({m.value for m in matches}) > 1:
        raise settings.error("type", f"{origin}: registered more than once "
                                     f"({', '.join(m.value for m in matches)})")
    try:
        factory = ep.load()
    except Exception as exc:  # any import error of a plugin is reported by name
        raise settings.error("type", f"{origin} failed to load: "
                                     f"{type(exc).__name__}: {exc}") from None
    if not callable(factory):
        raise settings.error("type", f"{origin} is not callable (expected a factory "
                                     "(settings, env) -> RemediationHook)")
    return factory, origin


def check_hook(obj: object, origin: str, settings: Settings) -> RemediationHook:
    """Refuse an object that does not keep the RemediationHook contract."""
    if not isinstance(obj, RemediationHook):
        missing = [a for a in ("name", "actions", "plan", "run") if not hasattr(obj, a)]
        raise settings.error("type", f"{origin} returned {type(obj).__name__}, not a "
                                     f"RemediationHook (missing: {', '.join(missing)})")
    actions = obj.actions
    if (not isinstance(actions, frozenset) or not actions
            or not all(isinstance(a, Action) for a in actions)):
        raise settings.error("type", f"{origin}: 'actions' must be a non-empty frozenset of "
                                     f"Action, not {actions!r}")
    if not isinstance(obj.name, str) or not obj.name:
        raise settings.error("type", f"{origin}: 'name' must be a non-empty string")
    if not callable(obj.plan) or not callable(obj.run):
        raise settings.error("type", f"{origin}: 'plan' and 'run' must be methods")
    return obj


def build_hook(spec: HookSpec, env: HookEnv, entry_points: EntryPoints) -> BoundHook:
    factory, origin = resolve_factory(spec, entry_points)
    try:
        hook = factory(spec.settings, env)
    except ConfigError:
        raise
    except Exception as exc:  # a plugin's factory failing is reported by name
        raise spec.settings.error("type", f"{origin} failed: {type(exc).__name__}: {exc}"
                                  ) from None
    checked = check_hook(hook, origin, spec.settings)
    return BoundHook(spec.label, checked, spec.timeout_s, spec.retries,
                     tuple(spec.settings.secrets))


def build_hooks(specs: Iterable[HookSpec], env: HookEnv,
                entry_points: EntryPoints = installed_entry_points) -> tuple[BoundHook, ...]:
    return tuple(build_hook(spec, env, entry_points) for spec in specs)
