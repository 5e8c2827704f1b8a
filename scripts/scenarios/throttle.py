"""A synchronous data-parallel job slowed by one thermally throttled GPU, and its healthy twin.

In synchronous data parallel every rank waits for the slowest GPU in each all-reduce, so when one
GPU throttles every rank's step time grows by the same amount: the logs say *that* the job
slowed, only the GPU metrics (a DCGM exporter range query saved beside the logs) say *which*
GPU. :func:`build_throttle_run` writes one such run from a :class:`ThrottleRun`; the catalog's
two scenarios are fixed instances of it, and ``bench/bench_stats.py`` draws many at random.

Layout: ``<node>/rank_<r>.log`` per rank (every rank prints its start-up, NCCL's init line with
its bus id and the end-of-training line; the first rank of each node, or every rank, prints the
progress lines, every ``every`` steps, as ``log_interval`` trainers do), ``<node>/launcher.log`` (torchrun's
banner) and ``metrics/dcgm.json`` (Prometheus range query: SM clock, clock-event reasons,
temperature and power of every GPU, one sample per ``scrape_s``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from .agent import Agent
from .expected import expect, incident
from .formats import dcgm_pci, pci_short
from .model import DGX_H100, E25
from .training import Schedule, make_comm, nccl_init, startup, train
from .writer import Scenario, Stream

# clock-event reason bits (DCGM_FI_DEV_CLOCK_THROTTLE_REASONS)
GPU_IDLE = 0x1
SW_POWER_CAP = 0x4
SW_THERMAL = 0x20
HW_THERMAL = 0x40


@dataclass(frozen=True)
class ThrottleRun:
    """One run. ``onset`` None is a healthy run (nothing throttles)."""

    nodes: int = 8
    per_node: int = 8
    steps: int = 2000
    every: int = 5  # a progress line every this many steps
    step_ms: float = 620.0
    jitter: float = 0.02  # lognormal sigma of one step's time (shared by all ranks)
    onset: int | None = 1000  # first throttled step
    gpu_cause: bool = True  # False: the job slows from ``onset`` for a reason outside the GPUs (storage, network)
    slow: float = 0.18  # the job's step time grows by this fraction while the GPU throttles
    bad_node: int = 3
    bad_local: int = 5
    clock_mhz: float = 1980.0
    throttled_mhz: float = 1350.0
    ckpt_every: int = 500  # a checkpoint save pauses every rank for about ckpt_s
    ckpt_s: float = 40.0
    eval_every: int = 1000  # an evaluation pause of about eval_s
    eval_s: float = 25.0
    scrape_s: float = 30.0
    hot_gpu: tuple[int, int] | None = (1, 2)  # healthy noise: a GPU briefly 10-15 C hotter
    clock_dips: float = 0.01  # chance per sample that a GPU dips a little under a power cap
    power_noise: float = 0.05  # relative sd of each power sample
    printers: str = "node"  # who prints progress lines: "node" (the first rank of each node) or "all"

    @property
    def ranks(self) -> int:
        return self.nodes * self.per_node


def _schedule(sc: Scenario, run: ThrottleRun, t0: float) -> tuple[Schedule, list[tuple[int, float, str]]]:
    """When each step ends; the pauses (checkpoint, evaluation) after a step: (step, s, what)."""
    sch = Schedule()
    pauses: list[tuple[int, float, str]] = []
    t = t0
    for k in range(1, run.steps + 1):
        factor = 1.0 + run.slow if run.onset is not None and k >= run.onset else 1.0
        d = run.step_ms * factor * math.exp(sc.rng.gauss(0.0, run.jitter))
        sch.ms[k] = d
        t += d / 1000.0
        sch.ends[k] = t
        if k < run.steps:
            if run.eval_every and k % run.eval_every == 0:
                pause = run.eval_s * math.exp(sc.rng.gauss(0.0, 0.15))
                pauses.append((k, pause, "eval"))
                t += pause
            if run.ckpt_every and k % run.ckpt_every == 0:
                pause = run.ckpt_s * math.exp(sc.rng.gauss(0.0, 0.15))
                pauses.append((k, pause, "ckpt"))
                t += pause
    return sch, pauses


def build_throttle_run(sc: Scenario, run: ThrottleRun, *, job: str = "llama-8b pretraining (FSDP hybrid shard)") -> dict[str, Any]:
    """Write the run's files into ``sc`` and return its expected.json."""
    era = E25
    names = [f"gpu-{17 + i:03d}" for i in range(run.nodes)]
    nodes = sc.nodes(names, DGX_H100)
    procs = sc.procs(nodes, run.per_node)
    comm = make_comm(sc, procs)
    bad = procs[run.bad_node * run.per_node + run.bad_local]
    streams = [Stream(sc, f"{p.node.name}/rank_{p.rank}.log", p, era, py="plain") for p in procs]
    for s in streams:
        startup(s, 2.0 + sc.rng.uniform(0.0, 0.4), job)
        nccl_init(s, 8.0 + sc.rng.uniform(0.0, 0.3), comm, brief=True)
        s.py(11.0 + sc.rng.uniform(0.0, 0.2), "INFO", "process group ready; building model")
    t_train = 45.0
    sch, pauses = _schedule(sc, run, t_train)
    printers = [s for s in streams if s.p.local == 0 or run.printers == "all"]
    for s in printers:
        train(s, "plain", sch, 1, run.steps, run.every, run.steps)
        for k, pause, what in pauses:
            t = sch.at(k) + 0.05
            if what == "eval":
                s.py(t, "INFO", f"running evaluation at step {k}")
                s.py(t + pause - 0.3, "INFO", f"eval at step {k}: loss {2.3 + sc.rng.uniform(-0.05, 0.05):.4f}")
            else:
                s.py(t, "INFO", f"saving checkpoint at step {k} to /ckpt/run/step_{k}")
                s.py(t + pause - 0.3, "INFO", f"checkpoint saved in {pause - 0.3:.1f} s")
    t_end = sch.at(run.steps) + 1.0
    for s in streams:
        s.py(t_end + sc.rng.uniform(0.0, 0.2), "INFO", f"Training finished: {run.steps} steps")
        s.py(t_end + 2.0 + sc.rng.uniform(0.0, 0.5), "INFO", "destroy_process_group(); exiting")
    for node in nodes:
        Agent(sc, f"{node.name}/launcher.log", node, era).banner(0.5)
    t_onset = sch.at(run.onset - 1) if run.onset is not None else None
    _dcgm(sc, run, procs, bad, t_end + 10.0, t_onset)
    sec_per_step = run.step_ms / 1000.0
    if run.onset is not None and not run.gpu_cause:
        return expect(
            f"A synchronous data-parallel run ({run.ranks} ranks on {run.nodes} nodes) whose step time grows "
            f"~{run.slow:.0%} from step {run.onset} for a reason outside the GPUs (a slower file system); "
            "metrics/dcgm.json is noisy but no GPU throttles: no GPU is to blame, no incident.",
            [])
    if run.onset is None:
        return expect(
            f"A healthy synchronous data-parallel run ({run.ranks} ranks on {run.nodes} nodes, {run.steps} steps of "
            f"~{sec_per_step:.2f} s, a checkpoint pause every {run.ckpt_every} steps and an evaluation every "
            f"{run.eval_every}). metrics/dcgm.json is noisy (clock jitter, short dips under a power cap, power noise, "
            "one GPU briefly 10-15 C hotter) but no GPU throttles and the step time does not change: no incident.",
            [])
    gpu = pci_short(bad.pci)
    return expect(
        f"A synchronous data-parallel run ({run.ranks} ranks on {run.nodes} nodes) that does not fail: from step "
        f"{run.onset} every rank's step time grows ~{run.slow:.0%} (the all-reduce waits for the slowest GPU), so no "
        f"rank stands out in the logs. metrics/dcgm.json shows why: GPU {bad.nvml_dev} of {bad.node.name} "
        f"({dcgm_pci(bad.pci)}, rank {bad.rank}) heats to 87-89 C and its SM clock falls from "
        f"{run.clock_mhz:.0f} to {run.throttled_mhz:.0f} MHz with the HW and SW thermal slowdown clock-event reasons "
        "set, from then on. Hardware evidence (HW thermal slowdown), so drain.",
        [incident("straggler", rank=bad.rank, node=bad.node.name, gpu=gpu, drain=True)])


def _dcgm(sc: Scenario, run: ThrottleRun, procs: list[Any], bad: Any, t_stop: float, t_onset: float | None) -> None:
    """The DCGM exporter's series through a Prometheus range query."""
    rng = sc.rng
    start_epoch = sc.base.timestamp()
    times = [i * run.scrape_s for i in range(int(t_stop // run.scrape_s) + 1)]
    hot = None
    if run.hot_gpu is not None:
        i0 = rng.randrange(len(times) // 5, max(len(times) // 5 + 1, len(times) - 4))
        hot = (run.hot_gpu, i0, i0 + rng.randint(2, 3), rng.uniform(10.0, 15.0))
    onset = t_onset if t_onset is not None else math.inf  # when the job slows (math.inf: never)
    series: list[dict[str, Any]] = []
    for p in procs:
        uuid = sc.uuid()
        labels = {"gpu": str(p.nvml_dev), "UUID": uuid, "pci_bus_id": dcgm_pci(p.pci), "device": f"nvidia{p.nvml_dev}",
                  "modelName": "NVIDIA H100 80GB HBM3", "Hostname": p.node.name,
                  "DCGM_FI_DRIVER_VERSION": "550.90.07", "instance": f"{p.node.name}:9400", "job": "dcgm-exporter"}
        temp0 = rng.uniform(55.0, 66.0)
        power0 = 620.0 * rng.uniform(0.97, 1.03)
        clock, reasons, temp, power = [], [], [], []
        for i, t in enumerate(times):
            training = 45.0 <= t <= t_stop - 10.0
            culprit = p is bad and run.gpu_cause
            throttled = culprit and t >= onset
            warming = culprit and onset - 240.0 <= t < onset
            if not training:
                c, r, tc, w = 345.0, GPU_IDLE, temp0 - 18.0, 95.0
            elif throttled:
                c = run.throttled_mhz + rng.gauss(0.0, 12.0)
                r = HW_THERMAL | SW_THERMAL
                tc = rng.uniform(87.0, 89.0)
                w = 0.72 * power0 * (1.0 + rng.gauss(0.0, run.power_noise))
            else:
                c = run.clock_mhz + rng.gauss(0.0, 8.0)
                r = 0
                if rng.random() < run.clock_dips:
                    c -= rng.uniform(30.0, 90.0)
                    r = SW_POWER_CAP
                tc = temp0 + rng.gauss(0.0, 1.2)
                if warming:
                    tc = temp0 + (86.0 - temp0) * (1.0 - (onset - t) / 240.0)
                w = power0 * (1.0 + rng.gauss(0.0, run.power_noise))
                if t >= onset:
                    w *= 0.88  # the others wait for the throttled GPU at every all-reduce
            if hot is not None and (p.node.index, p.local) == hot[0] and hot[1] <= i < hot[2]:
                tc += hot[3]
            clock.append(round(c))
            reasons.append(r)
            temp.append(round(tc))
            power.append(round(w, 3))
        for name, values in (("DCGM_FI_DEV_SM_CLOCK", clock), ("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", reasons),
                             ("DCGM_FI_DEV_GPU_TEMP", temp), ("DCGM_FI_DEV_POWER_USAGE", power)):
            series.append({"metric": {"__name__": name, **labels},
                           "values": [[round(start_epoch + t, 3), str(v)] for t, v in zip(times, values, strict=True)]})
    sc.logs.blob("metrics/dcgm.json", json.dumps({"status": "success", "data": {"resultType": "matrix",
                                                                               "result": series}},
                                                separators=(",", ":")) + "\n")


def sc_throttled_gpu(sc: Scenario) -> dict[str, Any]:
    return build_throttle_run(sc, ThrottleRun())


def sc_healthy_gpu_noise(sc: Scenario) -> dict[str, Any]:
    return build_throttle_run(sc, ThrottleRun(onset=None, hot_gpu=(5, 6), clock_dips=0.02))
