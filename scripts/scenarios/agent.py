"""torchrun's own console output on one node: banner, SIGTERMs, restarts, ChildFailedError summary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .formats import ts_glog, ts_pylog, ts_summary
from .model import Era, Node, Proc
from .writer import Scenario


@dataclass(frozen=True)
class Exit:
    proc: Proc
    t: float
    code: int


SIGNALS = {-6: "SIGABRT", -7: "SIGBUS", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM"}


class Agent:
    """torchrun's own console output on one node."""

    def __init__(self, sc: Scenario, path: str, node: Node, era: Era, script: str = "train.py",
                 outer: str = "") -> None:
        self.sc, self.path, self.node, self.era, self.script, self.outer = sc, path, node, era, script, outer
        self.pid = sc.rng.randint(9000, 3_000_000)

    def line(self, t: float, level: str, loc: str, msg: str) -> None:
        dt = self.sc.wall(self.node, t)
        if self.era.agent == "glog":
            text = f"{ts_glog(level[0], dt)} {self.pid} {loc}] {msg}"
        else:  # torch 2.1-2.3: "[asctime] module: [LEVEL] message", the module from the source path
            module = loc.split(":")[0].removesuffix(".py").replace("/", ".")
            text = f"[{ts_pylog(dt)}] {module}: [{level}] {msg}"
        self.sc.logs.add(self.path, t, [text])

    def banner(self, t: float) -> None:
        loc = "torch/distributed/run.py:793"
        for msg in ("", "*****************************************",
                    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
                    "system being overloaded, please further tune the variable for optimal performance in your "
                    "application as needed. ",
                    "*****************************************"):
            self.line(t, "WARNING", loc, msg)

    def sigterm(self, t: float, procs: Sequence[Proc]) -> None:
        for i, p in enumerate(sorted(procs, key=lambda q: q.local)):
            self.line(t + 0.0004 * i, "WARNING", "torch/distributed/elastic/multiprocessing/api.py:897",
                      f"Sending process {p.pid} closing signal SIGTERM")

    def unable(self, t: float, p: Proc) -> None:
        self.line(t, "WARNING", "torch/distributed/elastic/multiprocessing/api.py:916",
                  f"Unable to shutdown process {p.pid} via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL")

    def failed(self, t: float, e: Exit) -> None:
        self.line(t, "ERROR", "torch/distributed/elastic/multiprocessing/api.py:869",
                  f"failed (exitcode: {e.code}) local_rank: {e.proc.local} (pid: {e.proc.pid}) of binary: "
                  f"{self.era.python}")

    def restart(self, t: float, left: int, total: int) -> None:
        self.line(t, "WARNING", "torch/distributed/elastic/agent/server/api.py:704",
                  f"[default] Worker group FAILED. {left}/{total} attempts left; will restart worker group")

    def child_failed(self, t: float, root: Exit, others: Sequence[Exit]) -> None:
        site = self.era.site
        lines = [
            "Traceback (most recent call last):",
            f'  File "{self.era.python.rsplit("/", 1)[0]}/torchrun", line 8, in <module>',
            "    sys.exit(main())",
            f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
            "    return f(*args, **kwargs)",
            f'  File "{site}/torch/distributed/run.py", line 919, in main',
            "    run(args)",
            f'  File "{site}/torch/distributed/run.py", line 910, in run',
            "    elastic_launch(",
            f'  File "{site}/torch/distributed/launcher/api.py", line 138, in __call__',
            "    return launch_agent(self._config, self._entrypoint, list(args))",
            f'  File "{site}/torch/distributed/launcher/api.py", line 269, in launch_agent',
            "    raise ChildFailedError(",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "============================================================",
            f"{self.script} FAILED",
            "------------------------------------------------------------",
            "Failures:",
        ]
        if not others:
            lines.append("  <NO_OTHER_FAILURES>")
        for i, e in enumerate(sorted(others, key=lambda x: x.proc.local), start=1):
            lines += [f"[{i}]:", *self._entry(e)]
        lines += ["------------------------------------------------------------", "Root Cause (first observed failure):",
                  "[0]:", *self._entry(root), "============================================================"]
        self.sc.logs.add(self.path, t, [self.outer + x for x in lines])

    def _entry(self, e: Exit) -> list[str]:
        p = e.proc
        out = [f"  time      : {ts_summary(self.sc.wall(self.node, e.t))}",
               f"  host      : {self.node.name}",
               f"  rank      : {p.rank} (local_rank: {p.local})",
               f"  exitcode  : {e.code} (pid: {p.pid})",
               "  error_file: <N/A>"]
        if e.code < 0:
            out.append(f"  traceback : Signal {-e.code} ({SIGNALS[e.code]}) received by PID {p.pid}")
        else:
            out.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return out

    def teardown(self, exits: Sequence[Exit], alive: Sequence[Proc], *, stuck: Sequence[Proc] = (),
                 restart: tuple[int, int] | None = None, poll: float = 0.1) -> float:
        """The agent notices the first exit, SIGTERMs whatever still runs, reports the first failure
        and either restarts or prints the ChildFailedError summary. Returns when it is done."""
        first = min(exits, key=lambda e: (e.t, e.proc.local))
        t = first.t + poll
        done = [e for e in exits if e.t <= t]
        term = [*alive, *(e.proc for e in exits if e.t > t)]
        if term:
            self.sigterm(t, term)
        t_end = t + 0.02
        for p in stuck:
            self.unable(t + 30.0, p)
            t_end = t + 30.05
        self.failed(t_end, first)
        if restart:
            self.restart(t_end + 0.01, *restart)
            return t_end + 0.01
        self.child_failed(t_end + 0.02, first, [e for e in done if e is not first])
        return t_end + 0.02
