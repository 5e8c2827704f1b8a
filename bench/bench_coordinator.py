"""The coordinator at many nodes, against a real Prometheus (``make bench`` runs it; figures go
into BENCHMARKS.md).

A TSDB is backfilled (``promtool tsdb create-blocks-from openmetrics``) with the per-rank series
every node's sidecar exports (:mod:`detector.sidecar.metrics`: the same names and labels, plus
the ``job``/``instance`` labels Prometheus adds when it scrapes), for N nodes x 8 ranks, one
sample every 15 s for ten minutes. Two failures:

- *xid*: one rank's GPU falls off the bus (its first-error timestamp F, cause ``gpu_hardware``);
  every other rank reports a collective timeout 2-8 s later (its collateral timestamp) and waits
  in the all-reduce kernel; four ranks of other nodes raise a Python exception 40 s later.
- *hang*: one rank stops making progress 60 s before the others; they time out in the
  collective, it does not, and it waits somewhere else than they do. No initiator-grade evidence.

The data ends about three hours before now (backfilled blocks must not overlap Prometheus's
head) and the coordinator queries inside it (``CoordinatorSource(query_time=...)``), one round
every 2 s of data time, as ``watch --coordinator`` polls. A Prometheus is started on the blocks
(127.0.0.1, a temp dir). An evaluation is one ``query_once`` (its PromQL, through the same
prometheus-api-client as in production) plus attribution over what it returned, as the
coordinator's engine runs it (the engine's rank table from the coordinator's ranks, then
``attribute``). The same source is kept across rounds, as the coordinator keeps it; its first
round (who-is-who read in full) is measured separately, with fresh sources.

*before*: the coordinator as it was (every series of the six per-rank metrics, every round),
kept here as :func:`full_read` — the reference the tests compare incidents with.

Printed: median, p90 and max time per evaluation, the part that is queries and parsing, the
response bytes (JSON as decoded; Prometheus gzips it on the wire) and series per round and per
query, and whether the incident names the right rank, node, GPU and cause, at 64 nodes (the
anchor) and at 1,024 nodes (8,192 ranks).

Usage: ``.venv/bin/python bench/bench_coordinator.py [--nodes 64,1024] [--repeat 15] [--fault xid,hang]``
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from detector.attribution.attribute import attribute  # noqa: E402
from detector.pipeline.index import RunIndex  # noqa: E402
from detector.pipeline.model import rank_infos  # noqa: E402
from detector.sidecar.coordinator import CoordinatorSource  # noqa: E402
from detector.sidecar.model import External  # noqa: E402
from detector.sidecar.sources.procs import odd_ones  # noqa: E402
from detector.sidecar.sources.prom import PromClient, default_client, value_of  # noqa: E402
from detector.stats.stall import RULE as STALL_RULE  # noqa: E402
from detector.support.numbers import small_int  # noqa: E402
from detector.types import Cause, Finding, Incident, RankInfo, Role, RunFacts, Severity  # noqa: E402

RANKS_PER_NODE = 8
JOB = "llm-pretrain-7"
ROUND_S = 2.0  # the coordinator's default interval
GPUS = ("0000:18:00", "0000:2a:00", "0000:3a:00", "0000:5d:00", "0000:9a:00", "0000:ab:00", "0000:ba:00", "0000:db:00")
XID_TEXT = "NVRM: Xid (PCI:{gpu}): 79, pid='{pid}', name=python, GPU has fallen off the bus."
TIMEOUT_TEXT = ("[rank{rank}]:[E1130 17:40:{sec:02d}.227531 1220 ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) "
                "Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=15734, OpType=ALLREDUCE, "
                "NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600015 milliseconds before timing out.")
LATE_TEXT = "[rank{rank}]: RuntimeError: DataLoader worker (pid 4242) exited unexpectedly with exit code 1"
COMMON_WAIT = "ncclKernel_AllReduce_RING_LL_Sum_bf16 < c10d::ProcessGroupNCCL::WorkNCCL::synchronize"
ODD_WAIT = "time.sleep < train.py:train_step"
METRICS = ("rankdoctor_rank_info", "rankdoctor_rank_last_progress_timestamp_seconds", "rankdoctor_rank_last_step",
           "rankdoctor_rank_first_error_timestamp_seconds", "rankdoctor_rank_collateral_timestamp_seconds",
           "rankdoctor_rank_wait_state")


@dataclass(frozen=True)
class Scenario:
    """What the backfilled TSDB holds, and the truth the coordinator must find."""

    nodes: int
    end: float  # the last sample's time (seconds)
    fault: str = "xid"  # or "hang", "hang-all" (the hung rank times out too, later)
    ranks_per_node: int = RANKS_PER_NODE
    job: str = JOB
    seed: int = 7
    window_s: int = 600  # how long the job ran before the data ends
    sample_s: int = 15  # one sample per series this often (a common scrape interval)
    fail_before_end_s: int = 120
    failing_local_rank: int = 5

    @property
    def world(self) -> int:
        return self.nodes * self.ranks_per_node

    @property
    def failing_node_index(self) -> int:
        return (self.nodes * 2) // 3

    @property
    def failing_node(self) -> str:
        return node_name(self.failing_node_index)

    @property
    def failing_rank(self) -> int:
        return self.failing_node_index * self.ranks_per_node + self.failing_local_rank

    @property
    def failing_gpu(self) -> str:
        return GPUS[self.failing_local_rank % len(GPUS)]

    @property
    def cause(self) -> str:
        return "gpu_hardware" if self.fault == "xid" else "hang"

    @property
    def fail_time(self) -> float:
        return self.end - self.fail_before_end_s

    def round_times(self, n: int) -> list[float]:
        """Query times of n consecutive rounds, the last at the end of the data."""
        return [self.end - ROUND_S * (n - 1 - i) for i in range(n)]


def node_name(i: int) -> str:
    return f"gpu-node-{i:04d}"


def _labels(**kv: str) -> str:
    return ",".join(f'{k}="{v}"' for k, v in kv.items())


def write_openmetrics(path: Path, sc: Scenario) -> int:
    """The series as N sidecars export them and Prometheus stores them; returns the series count."""
    rng = random.Random(sc.seed)
    start = sc.end - sc.window_s
    grid = [start + i * sc.sample_s for i in range(sc.window_s // sc.sample_s + 1)]
    fail = sc.fail_time
    after = [t for t in grid if t >= fail]
    step_s = 1.5
    others = [r for r in range(sc.world) if r // sc.ranks_per_node != sc.failing_node_index]
    late = set(rng.sample(others, k=min(4, len(others)))) if sc.fault == "xid" else set()
    fam: dict[str, list[str]] = {name: [] for name in METRICS}
    series = 0
    for r in range(sc.world):
        node, local = r // sc.ranks_per_node, r % sc.ranks_per_node
        failing = r == sc.failing_rank
        gpu, pid = GPUS[local % len(GPUS)], 10_000 + 37 * node + local
        # the last step line before the failure: all ranks within a step of each other; in a
        # hang the failing rank stopped a minute before the others
        stopped = fail - (60.0 if failing and sc.fault == "hang" else rng.uniform(0.05, step_s))
        offset = rng.uniform(2.0, 8.0)
        base = _labels(job="sidecars", instance=f"{node_name(node)}:9400", training_job=sc.job, node=node_name(node),
                       rank=str(r))
        info = f'rankdoctor_rank_info{{{base},{_labels(local_rank=str(local), gpu=gpu, pid=str(pid))}}}'
        fam[METRICS[0]].extend(f"{info} 1 {t:.3f}" for t in grid)
        progress, steps = f"{METRICS[1]}{{{base}}}", f"{METRICS[2]}{{{base}}}"
        for t in grid:
            last = min(stopped, t - rng.uniform(0.0, step_s))
            fam[METRICS[1]].append(f"{progress} {last:.3f} {t:.3f}")
            fam[METRICS[2]].append(f"{steps} {int((last - start) / step_s) + 1000} {t:.3f}")
        series += 3
        wait = f'{METRICS[5]}{{{base},{_labels(state=ODD_WAIT if failing else COMMON_WAIT)}}}'
        if failing and sc.fault == "xid":
            err = (f'{METRICS[3]}{{{base},{_labels(cause="gpu_hardware", rule="xid.fallen_off_bus", confidence="1.00", text=XID_TEXT.format(gpu=gpu, pid=pid))}}}')
            fam[METRICS[3]].extend(f"{err} {fail:.3f} {t:.3f}" for t in after)
            series += 1
            continue  # its process is gone: no wait state
        if failing:  # a hang: it waits elsewhere; no evidence of its own (hang-all: a timeout, later)
            fam[METRICS[5]].extend(f"{wait} 1 {t:.3f}" for t in after)
            series += 1
            if sc.fault != "hang-all":
                continue
            offset += 30.0
        at = fail + offset
        coll = (f'{METRICS[4]}{{{base},'
                f'{_labels(rule="nccl.watchdog_timeout", text=TIMEOUT_TEXT.format(rank=r, sec=int(at) % 60))}}}')
        fam[METRICS[4]].extend(f"{coll} {at:.3f} {t:.3f}" for t in after if t >= at)
        if failing:
            series += 1
            continue
        fam[METRICS[5]].extend(f"{wait} 1 {t:.3f}" for t in after)
        series += 2
        if r in late:
            err = (f'{METRICS[3]}{{{base},{_labels(cause="python_exception", rule="python.uncaught_exception", confidence="0.80", text=LATE_TEXT.format(rank=r))}}}')
            fam[METRICS[3]].extend(f"{err} {fail + 40:.3f} {t:.3f}" for t in after if t >= fail + 40)
            series += 1
    with path.open("w") as out:
        for name, lines in fam.items():
            if not lines:
                continue
            out.write(f"# TYPE {name} gauge\n")
            out.write("\n".join(lines))
            out.write("\n")
        out.write("# EOF\n")
    return series


def backfill(om: Path, data: Path) -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        raise FileNotFoundError("promtool")
    data.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(om), str(data)],
                          capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"promtool exited with {proc.returncode}: {(proc.stderr or proc.stdout)[-2000:]}")


def default_end() -> float:
    """Three hours before now, on a whole minute: older than anything Prometheus's head holds,
    well inside the default 15-day retention."""
    return float(int(time.time() - 3 * 3600) // 60 * 60)


@contextmanager
def prometheus_on_backfill(sc: Scenario) -> Iterator[tuple[Any, dict[str, float]]]:
    """A real Prometheus serving a TSDB backfilled for ``sc``; yields the server (``.url``) and
    what preparing it took (series, seconds per stage)."""
    from tests.support.prometheus import start_prometheus, stop_prometheus

    base = Path(tempfile.mkdtemp(prefix="rankdoctor-coord-"))
    stages: dict[str, float] = {}
    try:
        t0 = time.perf_counter()
        om = base / "series.om"
        stages["series"] = write_openmetrics(om, sc)
        stages["write_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        backfill(om, base / "data")
        om.unlink()
        stages["backfill_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        server = start_prometheus(base)
        stages["start_s"] = time.perf_counter() - t0
        try:
            yield server, stages
        finally:
            stop_prometheus(server)
    finally:
        shutil.rmtree(base, ignore_errors=True)


class MeasuredClient:
    """The production client (prometheus-api-client, no retries), each query's response size
    (decoded JSON bytes) and series kept."""

    def __init__(self, url: str) -> None:
        inner: Any = default_client(url, 30.0)
        inner._session.hooks["response"].append(self._hook)
        self._inner = inner
        self._size = 0
        self.queries: list[tuple[str, int, int]] = []

    def _hook(self, response: Any, *args: Any, **kwargs: Any) -> Any:
        self._size = len(response.content)
        return response

    def custom_query(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._inner.custom_query(query, params=params)
        self.queries.append((query, self._size, len(result)))
        return result


@dataclass
class Evaluation:
    incidents: list[Incident]
    seconds: float
    query_seconds: float
    queries: list[tuple[str, int, int]]

    @property
    def bytes(self) -> int:
        return sum(q[1] for q in self.queries)

    @property
    def series(self) -> int:
        return sum(q[2] for q in self.queries)


def attribute_external(ext: External) -> list[Incident]:
    """Attribution as the coordinator's engine runs it: no logs of its own (an empty index),
    the coordinator's ranks and findings."""
    ranks = rank_infos(RunIndex(), {}, {r.rank: r for r in ext.ranks})
    return attribute(RunFacts(ext.findings, ranks, None, None))


class Coordinator:
    """One coordinator source kept across rounds (as ``watch --coordinator`` keeps it), its
    client measured, its query time set per round."""

    def __init__(self, url: str, sc: Scenario) -> None:
        self.client = MeasuredClient(url)
        self.at = sc.end
        self.source = CoordinatorSource(lambda: self.client, job=sc.job, interval_s=ROUND_S, clock=time.time,
                                        query_time=lambda: self.at)

    def evaluate(self, at: float) -> Evaluation:
        self.at = at
        self.client.queries = []
        t0 = time.perf_counter()
        self.source.query_once()
        t1 = time.perf_counter()
        assert self.source.last is not None
        incidents = attribute_external(self.source.last)
        return Evaluation(incidents, time.perf_counter() - t0, t1 - t0, list(self.client.queries))


def full_read(client: PromClient, job: str, at: float) -> External:
    """The coordinator as it was before it aggregated in PromQL: every series of the six
    per-rank metrics, every round, turned into findings and ranks in Python."""
    params = {"time": repr(at)}

    def q(name: str) -> list[dict[str, Any]]:
        return client.custom_query(f'{name}{{training_job="{job}"}}', params=params)

    def when(v: float | None) -> Any:
        from datetime import UTC, datetime

        return datetime.fromtimestamp(v, tz=UTC) if v else None

    ranks: dict[tuple[str | None, int], dict[str, Any]] = {}
    for name, key in ((METRICS[0], "info"), (METRICS[1], "progress"), (METRICS[2], "step")):
        for s in q(name):
            labels = s["metric"]
            rank = small_int(str(labels.get("rank")))
            if rank is not None:
                ranks.setdefault((labels.get("node") or None, rank), {})[key] = labels if key == "info" else value_of(s)
    findings: list[Finding] = []
    for s in q(METRICS[3]):
        labels, rank = s["metric"], small_int(str(s["metric"].get("rank")))
        if rank is not None:
            findings.append(Finding(rule=labels["rule"], role=Role.INITIATOR, cause=Cause(labels["cause"]),
                                    severity=Severity.ERROR, text=labels.get("text", ""), time=when(value_of(s)),
                                    rank=rank, node=labels.get("node") or None,
                                    confidence=float(labels.get("confidence", 0.8))))
    for s in q(METRICS[4]):
        labels, rank = s["metric"], small_int(str(s["metric"].get("rank")))
        if rank is not None:
            findings.append(Finding(rule=labels["rule"], role=Role.COLLATERAL, cause=None, severity=Severity.ERROR,
                                    text=labels.get("text", ""), time=when(value_of(s)), rank=rank,
                                    node=labels.get("node") or None))
    waits: dict[int, tuple[str | None, str]] = {}
    for s in q(METRICS[5]):
        labels, rank = s["metric"], small_int(str(s["metric"].get("rank")))
        if rank is not None and labels.get("state"):
            waits[rank] = (labels.get("node") or None, str(labels["state"]))
    odd = odd_ones({r: state for r, (_, state) in waits.items()})
    if odd:
        common = Counter(state for _, state in waits.values()).most_common(1)[0][0]
        findings.extend(Finding(
            rule=STALL_RULE, role=Role.INITIATOR, cause=Cause.HANG, severity=Severity.ERROR,
            text=f"the job stopped making progress; rank {r} on {waits[r][0]} waits in {waits[r][1]} while the other "
                 f"ranks wait in {common}", time=when(at), rank=r, node=waits[r][0],
            fields=(("first_ranks", str(r)), ("basis", "process_state"))) for r in odd)
    infos = []
    for (node, rank), r in sorted(ranks.items(), key=lambda kv: kv[0][1]):
        labels = r.get("info", {})
        infos.append(RankInfo(rank=rank, local_rank=small_int(labels.get("local_rank", "")), node=node,
                              pid=small_int(labels.get("pid", "")), gpu=labels.get("gpu") or None,
                              last_time=when(r.get("progress")),
                              last_step=int(r["step"]) if r.get("step") is not None else None))
    return External(tuple(findings), tuple(infos))


def evaluate_full(url: str, sc: Scenario, at: float) -> Evaluation:
    client = MeasuredClient(url)
    t0 = time.perf_counter()
    ext = full_read(client, sc.job, at)
    t1 = time.perf_counter()
    incidents = attribute_external(ext)
    return Evaluation(incidents, time.perf_counter() - t0, t1 - t0, list(client.queries))


def verdict(ev: Evaluation, sc: Scenario) -> tuple[bool, str]:
    if not ev.incidents:
        return False, "no incident"
    inc = ev.incidents[0]
    ini = inc.initiator
    ok = (inc.cause.value == sc.cause and ini.rank == sc.failing_rank and ini.node == sc.failing_node
          and ini.gpu == sc.failing_gpu and len(inc.collateral_ranks) == sc.world - 1)
    return ok, (f"{inc.cause.value}, rank {ini.rank}, {ini.node}, GPU {ini.gpu}, "
                f"{len(inc.collateral_ranks)} collateral ranks")


def measure(nodes: int, fault: str, repeat: int, *, full: bool = True) -> dict[str, Any]:
    sc = Scenario(nodes=nodes, end=default_end(), fault=fault)
    with prometheus_on_backfill(sc) as (server, stages):
        Coordinator(server.url, sc).evaluate(sc.end)  # warm: Prometheus's first read of the blocks
        cold = [Coordinator(server.url, sc).evaluate(sc.end) for _ in range(3)]
        coordinator = Coordinator(server.url, sc)
        times = sc.round_times(repeat + 1)
        coordinator.evaluate(times[0])  # its first round reads who is who
        steady = [coordinator.evaluate(t) for t in times[1:]]
        before = [evaluate_full(server.url, sc, sc.end) for _ in range(max(3, repeat // 3))] if full else []
    rows: dict[str, list[Evaluation]] = {"steady": steady, "first": cold}
    if before:
        rows["before"] = before
    return {"nodes": nodes, "ranks": sc.world, "fault": fault, "stages": stages, "rows": rows,
            "verdicts": {k: verdict(v[-1], sc) for k, v in rows.items()},
            "truth": f"{sc.cause}, rank {sc.failing_rank}, {sc.failing_node}, GPU {sc.failing_gpu}"}


def _ms(values: list[float], pick: Callable[[list[float]], float]) -> str:
    return f"{pick(values) * 1000:.0f}"


def p90(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.9 * len(values)) - 1)]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", default="64,1024", help="comma-separated node counts (8 ranks each)")
    p.add_argument("--repeat", type=int, default=15, help="steady rounds timed per size")
    p.add_argument("--fault", default="xid,hang", help="xid, hang or both")
    p.add_argument("--no-before", action="store_true", help="skip the reads-everything reference")
    args = p.parse_args()
    if shutil.which("promtool") is None or shutil.which("prometheus") is None:
        print("skipped: promtool/prometheus missing (Debian package prometheus)")
        return 0
    results = [measure(int(n), fault, args.repeat, full=not args.no_before)
               for fault in args.fault.split(",") for n in args.nodes.split(",")]
    labels = {"steady": "coordinator, every round", "first": "coordinator, first round (reads who is who)",
              "before": "before: every series, every round"}
    print("| failure | nodes / ranks | what | median / p90 / max per evaluation (ms) | queries + parsing, median (ms) "
          "| bytes returned (JSON) | series returned | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    ok = True
    for r in results:
        for key, evals in r["rows"].items():
            secs = [e.seconds for e in evals]
            good, said = r["verdicts"][key]
            ok = ok and good
            sizes = sorted({e.bytes for e in evals})
            size = f"{sizes[0]:,}" if len(sizes) == 1 else f"{sizes[0]:,}–{sizes[-1]:,}"
            print(f"| {r['fault']} | {r['nodes']:,} / {r['ranks']:,} | {labels[key]} "
                  f"| {_ms(secs, statistics.median)} / {_ms(secs, p90)} / {_ms(secs, max)} "
                  f"| {_ms([e.query_seconds for e in evals], statistics.median)} | {size} "
                  f"| {evals[-1].series:,} | {'right' if good else 'WRONG'}: {said} |")
    for fault in dict.fromkeys(r["fault"] for r in results):
        same = [r for r in results if r["fault"] == fault]
        if len(same) > 1:
            a, b = same[0], same[-1]
            for key in ("steady", "first", "before"):
                if key in a["rows"]:
                    ta = statistics.median(e.seconds for e in a["rows"][key])
                    tb = statistics.median(e.seconds for e in b["rows"][key])
                    ba = statistics.median(e.bytes for e in a["rows"][key])
                    bb = statistics.median(e.bytes for e in b["rows"][key])
                    print(f"\n{fault}, {labels[key]}: {b['nodes'] // a['nodes']}x the nodes, "
                          f"{tb / ta:.1f}x the time per evaluation, {bb / max(1, ba):.1f}x the bytes")
    for r in results:
        st = r["stages"]
        print(f"\n{r['fault']} at {r['nodes']:,} nodes ({int(st['series']):,} series; write {st['write_s']:.1f} s, "
              f"backfill {st['backfill_s']:.1f} s, start {st['start_s']:.1f} s); truth: {r['truth']}. "
              f"The coordinator's queries (bytes, series):\n")
        seen = set()
        for e in [*r["rows"]["first"], *r["rows"]["steady"]]:
            for query, size, n in e.queries:
                if query not in seen:
                    seen.add(query)
                    print(f"- {size:,} B, {n:,} series: `{query}`")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
