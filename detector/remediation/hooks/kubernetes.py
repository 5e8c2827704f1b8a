"""The ``kubernetes`` hook: cordon and taint the node, restart the job by deleting its pods.

Commands (argument lists for ``kubectl``, never a shell)::

    kubectl cordon <node>
    kubectl taint nodes <node> rankdoctor.io/unhealthy=<cause>:NoSchedule --overwrite
    kubectl delete pods -n <ns> -l <selector> --field-selector spec.nodeName=<node> --wait=false
                                         # restart: failed_pod (the job's pods on the bad node)
    kubectl delete pods -n <ns> -l <selector> --wait=false        # restart: all_pods

The job's controller (a PyTorchJob, JobSet or Job with a restart policy) recreates the pods; the
taint keeps them off the node.
"""

from __future__ import annotations

from detector.remediation.exec.argv import (
    K8S_LABEL_KEY_RE,
    K8S_NAME_RE,
    K8S_SELECTOR_RE,
    NODE_RE,
    safe_token,
)
from detector.remediation.exec.process import remaining
from detector.remediation.hooks.base import HookEnv
from detector.remediation.model import Action, Command, HookCall, HookResult, Status
from detector.support.settings import Settings

RESTART_MODES = ("failed_pod", "all_pods", "none")
_CONTEXT_RE = NODE_RE


class KubernetesHook:
    def __init__(
        self,
        env: HookEnv,
        *,
        namespace: str | None,
        selector: str | None,
        restart: str = "failed_pod",
        cordon: bool = True,
        taint_key: str | None = "rankdoctor.io/unhealthy",
        kubectl: str = "kubectl",
        context: str | None = None,
        kubeconfig: str | None = None,
    ) -> None:
        self._env = env
        self._namespace = namespace
        self._selector = selector
        self._restart = restart
        self._cordon = cordon
        self._taint_key = taint_key
        self._base: Command = (kubectl,) + (("--context", context) if context else ()) + (
            ("--kubeconfig", kubeconfig) if kubeconfig else ())
        acts = set()
        if cordon or taint_key:
            acts.add(Action.DRAIN)
        if restart != "none":
            acts.add(Action.RESUBMIT)
        self._actions = frozenset(acts)

    @property
    def name(self) -> str:
        return "kubernetes"

    @property
    def actions(self) -> frozenset[Action]:
        return self._actions

    def commands(self, call: HookCall) -> tuple[Command, ...]:
        node = call.node
        if call.action is Action.DRAIN and node:
            out: list[Command] = []
            if self._cordon:
                out.append((*self._base, "cordon", node))
            if self._taint_key:
                value = safe_token(call.incident.cause.value, 63)
                out.append((*self._base, "taint", "nodes", node,
                            f"{self._taint_key}={value}:NoSchedule", "--overwrite"))
            return tuple(out)
        if call.action is Action.RESUBMIT and self._namespace and self._selector:
            delete = (*self._base, "delete", "pods", "-n", self._namespace, "-l", self._selector)
            if self._restart == "failed_pod":
                if not node:
                    return ()
                delete += ("--field-selector", f"spec.nodeName={node}")
            return ((*delete, "--wait=false"),)
        return ()

    def plan(self, call: HookCall) -> HookResult:
        commands = self.commands(call)
        if not commands:
            return HookResult(Status.SKIPPED, f"nothing to do for {call.action}")
        return HookResult(Status.DRY_RUN, f"would {call.action} via kubectl", commands)

    def run(self, call: HookCall) -> HookResult:
        commands = self.commands(call)
        if not commands:
            return HookResult(Status.SKIPPED, f"nothing to do for {call.action}")
        done: list[Command] = []
        for argv in commands:
            res = self._env.runner(argv, timeout=remaining(call.deadline,
                                                           self._env.clock.monotonic()))
            done.append(argv)
            if not res.ok:
                return HookResult(Status.FAILED, f"{' '.join(argv[len(self._base):][:2])} "
                                                 f"failed: {res.summary()}", tuple(done))
        what = (f"cordoned and tainted {call.node}" if call.action is Action.DRAIN
                else f"deleted pods of {self._selector} in {self._namespace}")
        return HookResult(Status.OK, what, tuple(done))


def make_kubernetes_hook(settings: Settings, env: HookEnv) -> KubernetesHook:
    restart = settings.get_str("restart", "failed_pod", choices=RESTART_MODES)
    namespace = settings.get_str("namespace", None, pattern=K8S_NAME_RE)
    selector = settings.get_str("selector", None, pattern=K8S_SELECTOR_RE)
    taint = settings.get_bool("taint", True)
    taint_key = settings.get_str("taint_key", "rankdoctor.io/unhealthy", pattern=K8S_LABEL_KEY_RE)
    hook = KubernetesHook(
        env,
        namespace=namespace,
        selector=selector,
        restart=restart,
        cordon=settings.get_bool("cordon", True),
        taint_key=taint_key if taint else None,
        kubectl=settings.get_str("kubectl", "kubectl"),
        context=settings.get_str("context", None, pattern=_CONTEXT_RE),
        kubeconfig=settings.get_str("kubeconfig", None),
    )
    settings.done()
    if restart != "none" and (namespace is None or selector is None):
        key = "namespace" if namespace is None else "selector"
        raise settings.error(key, "is required to restart the job's pods (or set restart: none)")
    return hook
