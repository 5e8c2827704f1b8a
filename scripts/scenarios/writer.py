"""The log-writing helpers every scenario uses.

``LogWriter`` keeps the lines of every file of a scenario and writes them out in time order;
``Scenario`` is a scenario under construction (its seeded random source, its clock, its job
layout and its ``LogWriter``); ``Stream`` is one rank's process writing into one file.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from .formats import ts_glog, ts_pylog
from .model import Era, Node, Proc


class LogWriter:
    """Every line of every file of a scenario, kept with a sort key (true time, insertion order)
    so that several writers can share a file (a combined console log) and still come out in
    time order, while a multi-line block written at one time stays together."""

    def __init__(self) -> None:
        self.files: dict[str, list[tuple[float, int, str]]] = {}
        self.blobs: dict[str, str] = {}
        self._n = 0

    def add(self, path: str, t: float, lines: Sequence[str]) -> None:
        items = self.files.setdefault(path, [])
        for line in lines:
            items.append((t, self._n, line))
            self._n += 1

    def blob(self, path: str, text: str) -> None:
        self.blobs[path] = text

    def write(self, root: Path) -> list[Path]:
        written: list[Path] = []
        for rel, items in sorted(self.files.items()):
            items.sort(key=lambda x: (x[0], x[1]))
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(line + "\n" for _, _, line in items), encoding="utf-8")
            written.append(path)
        for rel, text in sorted(self.blobs.items()):
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
        return written


class Scenario:
    """A scenario under construction."""

    def __init__(self, name: str, base: datetime) -> None:
        self.name = name
        self.base = base
        self.rng = random.Random(zlib.crc32(name.encode()))
        self.logs = LogWriter()

    def wall(self, node: Node, t: float) -> datetime:
        return self.base + timedelta(seconds=t + node.skew)

    def hexs(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def uuid(self) -> str:
        return f"GPU-{self.hexs(8)}-{self.hexs(4)}-{self.hexs(4)}-{self.hexs(4)}-{self.hexs(12)}"

    def nodes(self, names: Sequence[str], layout: Sequence[str], ips: Sequence[str] | None = None,
              skews: Sequence[float] | None = None) -> list[Node]:
        out = []
        for i, name in enumerate(names):
            out.append(Node(name, i, tuple(layout), ips[i] if ips else f"10.0.{i // 200}.{11 + i % 200}",
                            skews[i] if skews else 0.0, float(self.rng.randint(40_000, 2_400_000))))
        return out

    def procs(self, nodes: Sequence[Node], per_node: int, nvml_offset: int = 0,
              pin: dict[int, int] | None = None) -> list[Proc]:
        """Ranks node by node; a launcher starts its workers one after another, so pids nearly
        follow each other. ``pin`` fixes the pid of some ranks (the rest of their node follows)."""
        world = len(nodes) * per_node
        procs = []
        for node in nodes:
            steps = [0]
            for _ in range(per_node - 1):
                steps.append(steps[-1] + self.rng.randint(1, 3))
            base = self.rng.randint(12_000, 3_900_000)
            for rank, pid in (pin or {}).items():
                if rank // per_node == node.index:
                    base = pid - steps[rank % per_node]
            for local in range(per_node):
                procs.append(Proc(node.index * per_node + local, local, node, base + steps[local], local,
                                  local + nvml_offset, world))
        return procs

    def respawn(self, procs: Sequence[Proc]) -> list[Proc]:
        """The same ranks in a new attempt: new pids."""
        out = []
        by_node: dict[str, int] = {}
        for p in procs:
            pid = by_node.get(p.node.name) or self.rng.randint(12_000, 3_900_000)
            out.append(Proc(p.rank, p.local, p.node, pid, p.cuda_dev, p.nvml_dev, p.world))
            by_node[p.node.name] = pid + self.rng.randint(1, 3)
        return out


PyFormat = Callable[[str, str, str, str], str]  # (asctime, level, logger, message)

PY_STYLES: dict[str, PyFormat] = {
    "std": lambda ts, lv, lg, m: f"{ts} - {lv} - {lg} - {m}",
    "bracket": lambda ts, lv, lg, m: f"[{ts}] [{lv}] [{lg}] {m}",
    "hydra": lambda ts, lv, lg, m: f"[{ts}][{lg}][{lv}] - {m}",
    "hf": lambda ts, lv, lg, m: f"[{lv}|{lg}] {ts} >> {m}",
    "titan": lambda ts, lv, lg, m: f"[titan] {ts} - {lg} - {lv} - {m}",
    "plain": lambda ts, lv, lg, m: f"{ts} {lv} {m}",
}


class Stream:
    """The output of one rank's process into one file (``outer`` is a launcher's line prefix in a
    combined console log: ``[default2]:`` or an srun label)."""

    def __init__(self, sc: Scenario, path: str, proc: Proc, era: Era, *, outer: str = "", py: str = "std",
                 logger: str = "train") -> None:
        self.sc = sc
        self.path = path
        self.p = proc
        self.era = era
        self.outer = outer
        self.pyfmt = PY_STYLES[py]
        self.logger = logger
        self.tid = proc.pid + sc.rng.randint(40, 400)
        self.proxy_tid = self.tid + sc.rng.randint(2, 30)

    def wall(self, t: float) -> datetime:
        return self.sc.wall(self.p.node, t)

    def raw(self, t: float, *lines: str) -> None:
        self.sc.logs.add(self.path, t, [self.outer + line for line in lines])

    def py(self, t: float, level: str, msg: str, logger: str | None = None) -> None:
        self.raw(t, self.pyfmt(ts_pylog(self.wall(t)), level, logger or self.logger, msg))

    def nccl(self, t: float, msg: str, *, tid: int | None = None) -> None:
        p = self.p
        self.raw(t, f"{p.node.name}:{p.pid}:{tid or self.tid} [{p.cuda_dev}] NCCL INFO {msg}")

    def nccl_warn(self, t: float, src: str, msg: str, *, tid: int | None = None) -> None:
        p = self.p
        self.raw(t, "", f"{p.node.name}:{p.pid}:{tid or self.tid} [{p.cuda_dev}] {src} NCCL WARN {msg}")

    def c10d(self, t: float, level: str, loc: str, msg: str, *more: str) -> None:
        """A c10d (C++) log message; continuation lines carry no prefix of their own."""
        pre = f"[rank{self.p.rank}]:" if self.era.rank_prefix else ""
        if self.era.c10d_stamp:
            head = f"{pre}[{ts_glog(level, self.wall(t), nanos=True)} {loc}] {msg}"
        else:
            head = f"{pre}[{level} {loc}] {msg}"
        self.raw(t, head, *more)

    def tb(self, t: float, lines: Sequence[str]) -> None:
        """Lines of an uncaught exception (torch's excepthook prefixes each with ``[rankN]: ``)."""
        pre = f"[rank{self.p.rank}]: " if self.era.rank_prefix else ""
        self.raw(t, *[pre + line for line in lines])
