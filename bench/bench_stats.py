"""Benchmark of the statistical detectors (issue #5): detection delay, false positives, speed.

    python bench/bench_stats.py [--quick] [--only SECTION ...] [--jobs 2] [--out bench/out/stats.json]

Runs generated with realistic jitter (``generate`` below): lognormal noise per rank and per
step, rare spikes, checkpoint pauses every N steps, evaluation pauses, ranks printing a few ms
apart. Prints a Markdown table and writes the figures as JSON.

The ``throttle`` section (issue 13) goes through the whole replay instead: the scenario
generator (scripts/scenarios/throttle.py) writes synchronous 64-rank runs on 8 nodes into a
temporary folder (logs and a DCGM range-query export), half of them with one GPU thermally
throttled from the middle of the run, half healthy with noisy metrics, and each is replayed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from detector.stats import (
    LogNote,
    NoteKind,
    StallTracker,
    StatsConfig,
    StepSample,
    StepTable,
    analyze_table,
)
from detector.stats.series import build_grid, job_step_seconds, job_wall_per_step
from detector.stats.slowdown import detect_slowdowns
from detector.stats.stall_replay import detect_stalls
from detector.stats.straggler import detect_stragglers
from detector.types import Finding

CONFIG = StatsConfig()


# --- generated runs ---------------------------------------------------------------------
# A synchronous data-parallel job: every rank's rank-local time (forward + data loading) has
# lognormal noise and occasional spikes; the step ends at the slowest rank plus the all-reduce
# and backward; every rank prints the same total step time and its own local timings. Rank 0
# pauses for a checkpoint every ``ckpt_every`` steps and for an evaluation every ``eval_every``
# steps (all ranks wait), optionally after printing a line saying so.

T0 = 1_796_000_000.0


@dataclass(frozen=True, slots=True)
class RunSpec:
    ranks: int = 64
    steps: int = 1000
    fwd_s: float = 0.30  # rank-local compute per step
    data_s: float = 0.02
    sync_s: float = 0.15  # backward + all-reduce after the slowest rank
    jitter: float = 0.06  # lognormal sigma of each rank's local time
    job_jitter: float = 0.03  # lognormal sigma shared by all ranks of a step
    spike_p: float = 0.001  # chance that a rank's step is a spike
    spike_factor: float = 3.0
    ckpt_every: int = 200
    ckpt_s: tuple[float, float] = (20.0, 120.0)
    eval_every: int = 250
    eval_s: tuple[float, float] = (10.0, 60.0)
    pause_jitter: float = 0.2  # lognormal sigma of one pause around the run's typical length
    notes: bool = False  # print "saving checkpoint"/"evaluating" before the pauses
    slow_rank: int | None = None
    slow_from: int = 0
    slow_factor: float = 1.2  # the slow rank's local time is multiplied by this
    job_slow_from: int | None = None
    job_slow_factor: float = 1.15
    hang_at: int | None = None  # every rank stops printing after this step
    start_step: int = 1


def generate(spec: RunSpec, rng: np.random.Generator) -> tuple[StepTable, list[LogNote], float]:
    """The run's step table, its marker lines and the time its logs end."""
    r, n = spec.ranks, spec.steps
    steps = np.arange(spec.start_step, spec.start_step + n)
    fwd = spec.fwd_s * rng.lognormal(0.0, spec.jitter, (r, n))
    data = spec.data_s * rng.lognormal(0.0, spec.jitter * 2, (r, n))
    spikes = rng.random((r, n)) < spec.spike_p
    fwd = np.where(spikes, fwd * spec.spike_factor, fwd)
    if spec.slow_rank is not None:
        fwd[spec.slow_rank, steps >= spec.slow_from] *= spec.slow_factor
    job = rng.lognormal(0.0, spec.job_jitter, n)
    if spec.job_slow_from is not None:
        job = np.where(steps >= spec.job_slow_from, job * spec.job_slow_factor, job)
    fwd *= job[None, :]
    data *= job[None, :]
    local = fwd + data
    total = local.max(axis=0) + spec.sync_s * job  # every rank waits for the slowest
    pauses = np.zeros(n)
    notes: list[LogNote] = []
    ends = np.cumsum(total)
    # one typical length per run for each kind of pause; each occurrence varies around it
    typical = {
        word: float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
        for word, (lo, hi) in (
            ("saving checkpoint", spec.ckpt_s),
            ("running evaluation", spec.eval_s),
        )
    }
    for i, step in enumerate(steps):
        for every, word in (
            (spec.ckpt_every, "saving checkpoint"),
            (spec.eval_every, "running evaluation"),
        ):
            if every and step % every == 0 and i + 1 < n:
                pause = typical[word] * float(rng.lognormal(0.0, spec.pause_jitter))
                pauses[i + 1] += pause
                if spec.notes:
                    notes.append(
                        LogNote(
                            0,
                            T0 + float(ends[i]) + float(pauses[: i + 1].sum()) + 0.01,
                            NoteKind.PAUSE,
                            word,
                        )
                    )
    wall = np.cumsum(total + pauses)
    log_delay = rng.uniform(0.0, 0.005, (r, n))  # ranks print a few ms apart
    times = T0 + wall[None, :] + log_delay
    keep = n if spec.hang_at is None else int(np.searchsorted(steps, spec.hang_at, side="right"))
    ranks = np.repeat(np.arange(r, dtype=np.int64), keep)
    table = StepTable(
        ranks=ranks,
        steps=np.tile(steps[:keep], r).astype(np.int64),
        times=times[:, :keep].reshape(-1),
        durations=np.tile(total[:keep], r),
        local_keys=("fwd", "data", "bwd"),
        local=np.stack(
            [
                fwd[:, :keep].reshape(-1),
                data[:, :keep].reshape(-1),
                np.tile(total[:keep], r) - local[:, :keep].reshape(-1),
            ],
            axis=1,
        ),
    )
    end = float(times[:, keep - 1].max())
    if spec.hang_at is not None:
        end += 600.0  # the logs end when the collective timeout kills the job
    return table, notes, end


# --- measurements -------------------------------------------------------------------------


def healthy_spec(rng: np.random.Generator, index: int) -> RunSpec:
    """A healthy run; the pauses and their lines vary from run to run."""
    ckpt_every, notes = [(200, False), (500, False), (100, False), (333, True)][index % 4]
    return RunSpec(
        ranks=64,
        steps=1000,
        fwd_s=float(rng.uniform(0.1, 1.0)),
        data_s=float(rng.uniform(0.005, 0.05)),
        sync_s=float(rng.uniform(0.05, 0.4)),
        jitter=float(rng.uniform(0.03, 0.10)),
        job_jitter=float(rng.uniform(0.01, 0.05)),
        spike_p=float(rng.uniform(0.0, 0.003)),
        ckpt_every=ckpt_every,
        ckpt_s=(20.0, 180.0),
        eval_every=[250, 0, 300, 0][index % 4],
        eval_s=(10.0, 60.0),
        notes=notes,
    )


def _by_rule(findings: list[Finding]) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in findings:
        out[f.rule] = out.get(f.rule, 0) + 1
    return out


def false_positives(runs: int, seed: int) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    counts: dict[str, int] = {}
    runs_with = 0
    examples: list[str] = []
    for i in range(runs):
        table, notes, end = generate(healthy_spec(rng, i), rng)
        findings = analyze_table(table, [], end_time=end, notes=notes)
        for rule, n in _by_rule(findings).items():
            counts[rule] = counts.get(rule, 0) + n
        if findings:
            runs_with += 1
            examples.extend(f.text for f in findings[:2])
    return {
        "runs": runs,
        "ranks": 64,
        "steps": 1000,
        "runs_with_findings": runs_with,
        "findings": counts,
        "examples": examples[:5],
    }


def feed_live(
    tracker: StallTracker, table: StepTable, notes: list[LogNote], every_s: float
) -> list[Finding]:
    """What a sidecar would have reported: every line and marker in time order, and
    ``check`` every ``every_s`` seconds of the run's clock."""
    order = np.argsort(table.times, kind="stable").tolist()
    pending = sorted(notes, key=lambda n: n.time)
    found: list[Finding] = []
    next_check = float(table.times[order[0]]) + every_s
    for idx in order:
        t = float(table.times[idx])
        while (pending and pending[0].time <= t) or next_check <= t:
            if pending and pending[0].time <= next_check:
                tracker.observe_note(pending.pop(0))
            else:
                found.extend(tracker.check(next_check))
                next_check += every_s
        tracker.observe(StepSample(int(table.ranks[idx]), None, t, int(table.steps[idx])))
    found.extend(tracker.check(next_check))
    return found


def live_false_positives(runs: int, seed: int, check_every_s: float = 5.0) -> dict[str, object]:
    """The same kind of healthy runs through the sidecar's StallTracker."""
    rng = np.random.default_rng(seed)
    reported = 0
    for i in range(runs):
        table, notes, _end = generate(healthy_spec(rng, i), rng)
        reported += len(feed_live(StallTracker(CONFIG), table, notes, check_every_s))
    return {"runs": runs, "checks_every_s": check_every_s, "stall_findings": reported}


def straggler_delay(runs: int, seed: int, factor: float = 1.2) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    delays: list[int] = []
    missed = wrong = 0
    for _ in range(runs):
        slow_rank = int(rng.integers(0, 64))
        slow_from = int(rng.integers(300, 700))
        spec = replace(
            healthy_spec(rng, 0), slow_rank=slow_rank, slow_from=slow_from, slow_factor=factor
        )
        table, notes, end = generate(spec, rng)
        findings = [
            f
            for f in analyze_table(table, [], end_time=end, notes=notes)
            if f.rule == "stats.straggler"
        ]
        hit = [f for f in findings if f.rank == slow_rank]
        wrong += len(findings) - len(hit)
        if not hit:
            missed += 1
            continue
        delays.append(int(hit[0].field("detected_step") or 0) - slow_from)
    return _delay_summary(runs, delays, missed, wrong, f"rank-local time x{factor}")


def slowdown_delay(runs: int, seed: int, factor: float = 1.15) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    delays: list[int] = []
    onset_errors: list[int] = []
    missed = wrong = 0
    for _ in range(runs):
        slow_from = int(rng.integers(300, 700))
        spec = replace(healthy_spec(rng, 0), job_slow_from=slow_from, job_slow_factor=factor)
        table, notes, end = generate(spec, rng)
        findings = [
            f
            for f in analyze_table(table, [], end_time=end, notes=notes)
            if f.rule == "stats.slowdown"
        ]
        after = [f for f in findings if int(f.field("detected_step") or 0) >= slow_from]
        wrong += len(findings) - len(after)
        if not after:
            missed += 1
            continue
        delays.append(int(after[0].field("detected_step") or 0) - slow_from)
        onset_errors.append(int(after[0].field("step") or 0) - slow_from)
    out = _delay_summary(runs, delays, missed, wrong, f"job step time x{factor}")
    out["onset_error_steps_median"] = (
        float(np.median(np.abs(onset_errors))) if onset_errors else None
    )
    return out


def hang_delay(runs: int, seed: int) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    delays: list[float] = []
    missed = 0
    for _ in range(runs):
        hang_at = int(rng.integers(300, 900))
        if hang_at % 50 in (0, 49):
            hang_at += 7  # keep off round steps, where a longer checkpoint allowance applies
        spec = replace(healthy_spec(rng, 0), hang_at=hang_at)
        table, notes, end = generate(spec, rng)
        stalls = [
            f
            for f in analyze_table(table, [], end_time=end, notes=notes)
            if f.rule == "stats.stall" and f.field("recovered") == "false"
        ]
        if not stalls or stalls[0].time is None:
            missed += 1
            continue
        last = float(table.times[table.steps == hang_at].max())
        delays.append(stalls[0].time.timestamp() - last)
    return {
        "runs": runs,
        "detected": runs - missed,
        "seconds_after_last_step_median": float(np.median(delays)) if delays else None,
        "seconds_after_last_step_max": float(np.max(delays)) if delays else None,
    }


def _delay_summary(
    runs: int, delays: list[int], missed: int, wrong: int, what: str
) -> dict[str, object]:
    return {
        "what": what,
        "runs": runs,
        "detected": runs - missed,
        "wrong_findings": wrong,
        "delay_steps_median": float(np.median(delays)) if delays else None,
        "delay_steps_p90": float(np.percentile(delays, 90)) if delays else None,
        "delay_steps_max": int(np.max(delays)) if delays else None,
    }


# --- a throttled GPU in a synchronous job, through the whole replay (issue 13) -------------


def throttle_spec(rng: random.Random, kind: str) -> object:
    """One generated 64-rank run: the trainer's log interval, step time, jitter, pauses,
    metrics noise and where and when one GPU throttles (``kind`` "throttled"), or the job slows
    for a reason outside the GPUs ("other"), or nothing happens ("healthy"), all drawn."""
    from scenarios.throttle import ThrottleRun

    every = rng.choice((1, 5, 10))
    # the first rank of each node prints progress (8 files: replay keeps up to 1,000 step lines
    # of each), or every rank does (64 files: 320 lines each, so the run is shorter)
    printers = "all" if rng.random() < 1 / 3 else "node"
    lines = rng.randint(280, 320) if printers == "all" else rng.randint(320, 560)
    steps = lines * every
    return ThrottleRun(
        steps=steps,
        every=every,
        step_ms=rng.uniform(300.0, 1200.0),
        jitter=rng.uniform(0.01, 0.04),
        onset=int(steps * rng.uniform(0.4, 0.6)) if kind != "healthy" else None,
        gpu_cause=kind == "throttled",
        slow=rng.uniform(0.15, 0.22),
        bad_node=rng.randrange(8),
        bad_local=rng.randrange(8),
        throttled_mhz=rng.uniform(1300.0, 1450.0),
        ckpt_every=every * rng.choice((50, 80, 100)),
        ckpt_s=rng.uniform(20.0, 120.0),
        eval_every=every * rng.choice((0, 100, 150)),
        eval_s=rng.uniform(10.0, 60.0),
        scrape_s=rng.choice((15.0, 30.0)),
        hot_gpu=(rng.randrange(8), rng.randrange(8)),
        clock_dips=rng.uniform(0.0, 0.03),
        power_noise=rng.uniform(0.02, 0.08),
        printers=printers,
    )


_RULES: list[object] = []


def _throttle_one(args: tuple[int, str]) -> dict[str, object]:
    """Generate one run in a temporary folder, replay it, compare with the truth."""
    from datetime import UTC, datetime

    from scenarios.throttle import build_throttle_run
    from scenarios.writer import Scenario

    from detector.replay import replay_path
    from detector.rules.compile import load_ruleset

    seed, kind = args
    if not _RULES:
        _RULES.append(load_ruleset())
    rng = random.Random(seed)
    spec = throttle_spec(rng, kind)
    sc = Scenario(f"bench_throttle_{seed}", datetime(2026, 12, 5, 8, 0, 0, tzinfo=UTC))
    sc.rng = rng
    expected = build_throttle_run(sc, spec)  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory(prefix="rankdoctor-throttle-") as tmp:
        folder = Path(tmp) / "run"
        sc.logs.write(folder)
        started = time.perf_counter()
        report = replay_path(folder, _RULES[0])  # type: ignore[arg-type]
        seconds = time.perf_counter() - started
    truth = expected["incidents"][0]["initiator"] if expected["incidents"] else None
    incidents = list(report.incidents)
    found = next((i for i in incidents if i.cause.value == "straggler"), None)
    out: dict[str, object] = {
        "seed": seed,
        "kind": kind,
        "every": spec.every,  # type: ignore[attr-defined]
        "printers": spec.printers,  # type: ignore[attr-defined]
        "incidents": [f"{i.cause.value}@{i.initiator.rank}" for i in incidents],
        "replay_s": seconds,
    }
    if truth is not None and found is not None:
        ini = found.initiator
        out["right"] = (ini.rank, ini.node, ini.gpu) == (truth["rank"], truth["node"], truth["gpu"])
        out["first"] = incidents[0] is found
        out["drain"] = found.remediation.drain_node
        slowdown = next((f for f in found.evidence if f.rule == "stats.slowdown"), None)
        if slowdown is not None:
            onset = spec.onset  # type: ignore[attr-defined]
            out["delay_steps"] = int(slowdown.field("detected_step") or 0) - onset
            out["delay_lines"] = out["delay_steps"] // spec.every  # type: ignore[attr-defined,operator]
    return out


def throttle_fusion(runs: int, healthy: int, other: int, seed: int, jobs: int) -> dict[str, object]:
    """Detection of the throttled GPU through the whole replay, and false incidents on healthy
    runs and on runs that slow down for a reason outside the GPUs."""
    kinds = ["throttled"] * runs + ["healthy"] * healthy + ["other"] * other
    work = [(seed * 1000 + i, kind) for i, kind in enumerate(kinds)]
    started = time.perf_counter()
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(_throttle_one, work))
    else:
        results = [_throttle_one(w) for w in work]
    bad = [r for r in results if r["kind"] == "throttled"]
    good = [r for r in results if r["kind"] == "healthy"]
    elsewhere = [r for r in results if r["kind"] == "other"]
    found = [r for r in bad if "right" in r]
    right = [r for r in found if r["right"] and r["first"]]
    delays = [int(r["delay_steps"]) for r in found if "delay_steps" in r]  # type: ignore[call-overload]
    lines = [int(r["delay_lines"]) for r in found if "delay_lines" in r]  # type: ignore[call-overload]
    false_healthy = [r for r in good if r["incidents"]]
    extra = [r for r in bad if len(r["incidents"]) > (1 if "right" in r else 0)]  # type: ignore[arg-type]
    return {
        "runs": len(bad),
        "healthy_runs": len(good),
        "ranks": 64,
        "nodes": 8,
        "detected": len(found),
        "right_rank_node_gpu": len(right),
        "drained": sum(1 for r in found if r.get("drain")),
        "other_incidents_on_throttled_runs": len(extra),
        "healthy_runs_with_incidents": len(false_healthy),
        "other_slowdown_runs": len(elsewhere),
        "other_slowdown_runs_with_incidents": sum(1 for r in elsewhere if r["incidents"]),
        "false_incident_examples": [r["incidents"] for r in false_healthy[:3]],
        "missed_seeds": [r["seed"] for r in bad if "right" not in r][:10],
        "delay_steps_median": float(np.median(delays)) if delays else None,
        "delay_steps_p90": float(np.percentile(delays, 90)) if delays else None,
        "delay_steps_median_by_log_interval": {
            every: float(np.median([int(r["delay_steps"]) for r in found  # type: ignore[call-overload]
                                    if r["every"] == every and "delay_steps" in r]))
            for every in sorted({int(r["every"]) for r in found})  # type: ignore[call-overload]
        },
        "runs_every_rank_prints": sum(1 for r in bad if r["printers"] == "all"),
        "delay_lines_median": float(np.median(lines)) if lines else None,
        "delay_lines_p90": float(np.percentile(lines, 90)) if lines else None,
        "replay_s_median": float(np.median([float(r["replay_s"]) for r in results])),  # type: ignore[arg-type]
        "seconds": time.perf_counter() - started,
    }


def speed(repeats: int, ranks: int = 1024, steps: int = 10_000) -> dict[str, object]:
    rng = np.random.default_rng(7)
    table, notes, end = generate(
        RunSpec(ranks=ranks, steps=steps, slow_rank=3, slow_from=steps // 2), rng
    )
    stats_times: list[float] = []
    total_times: list[float] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        grid = build_grid(table)
        job = job_step_seconds(grid, CONFIG.job_ranks_sample)
        detect_stalls(grid, notes, end_time=end, config=CONFIG)
        detect_stragglers(grid, job_wall_per_step(grid, CONFIG.job_ranks_sample), CONFIG)
        detect_slowdowns(grid, job, CONFIG)
        t1 = time.perf_counter()
        analyze_table(table, [], end_time=end, notes=notes)
        t2 = time.perf_counter()
        stats_times.append(t1 - t0)
        total_times.append(t2 - t1)
    return {
        "ranks": ranks,
        "steps": steps,
        "samples": len(table),
        "repeats": repeats,
        "statistics_s_median": float(np.median(stats_times)),
        "statistics_s_min": float(np.min(stats_times)),
        "analyze_s_median": float(np.median(total_times)),
    }


SECTIONS = ("straggler", "slowdown", "hang", "false_positives", "false_positives_live", "speed", "throttle")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer runs (a smoke test)")
    parser.add_argument("--only", nargs="*", choices=SECTIONS, default=None, help="sections to run")
    parser.add_argument("--jobs", type=int, default=2, help="processes for the throttle section")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "out" / "stats.json"
    )
    args = parser.parse_args(argv)
    scale = 5 if args.quick else 1
    chosen = set(args.only or SECTIONS)
    started = time.perf_counter()
    sections = {
        "straggler": lambda: straggler_delay(40 // scale, seed=11),
        "slowdown": lambda: slowdown_delay(40 // scale, seed=12),
        "hang": lambda: hang_delay(20 // scale, seed=13),
        "false_positives": lambda: false_positives(100 // scale, seed=14),
        "false_positives_live": lambda: live_false_positives(20 // scale, seed=15),
        "speed": lambda: speed(5 if not args.quick else 2),
        "throttle": lambda: throttle_fusion(100 // scale, 100 // scale, 40 // scale, seed=16, jobs=args.jobs),
    }
    results: dict[str, object] = {name: run() for name, run in sections.items() if name in chosen}
    results["bench_seconds"] = time.perf_counter() - started
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(markdown(results))
    return 0


def _row(measure: str, result: str, target: str) -> str:
    return f"| {measure} | {result} | {target} |"


def _section(r: dict[str, object], key: str) -> dict[str, object]:
    value = r[key]
    if not isinstance(value, dict):
        raise TypeError(f"{key} is not a section")
    return value


def markdown(r: dict[str, object]) -> str:
    rows = ["| measure | result | target |", "|---|---|---|"]
    if all(key in r for key in SECTIONS[:6]):
        rows += _detector_rows(r)
    if "throttle" in r:
        rows += _throttle_rows(_section(r, "throttle"))
    return "\n".join(rows)


def _throttle_rows(t: dict[str, object]) -> list[str]:
    runs, healthy = t["runs"], t["healthy_runs"]
    return [
        _row(
            f"throttled GPU in a synchronous {t['ranks']}-rank job on {t['nodes']} nodes (whole replay, logs + "
            f"DCGM export; every rank prints steps in {t['runs_every_rank_prints']} runs, one rank per node in "
            "the others): a straggler incident",
            f"{t['detected']}/{runs}",
            "all",
        ),
        _row(
            "… naming the right rank, node and GPU PCI id as the first incident",
            f"{t['right_rank_node_gpu']}/{runs} (drained: {t['drained']}; other incidents: "
            f"{t['other_incidents_on_throttled_runs']})",
            "all",
        ),
        _row(
            "… found this many steps after the onset (median / p90); in progress lines",
            f"{_n(t['delay_steps_median'])} / {_n(t['delay_steps_p90'])} steps "
            f"({_n(t['delay_lines_median'])} / {_n(t['delay_lines_p90'])} lines; median by log interval: "
            + ", ".join(f"every {k}: {_n(v)}" for k, v in _section(t, "delay_steps_median_by_log_interval").items())
            + ")",
            "",
        ),
        _row(
            "healthy runs (checkpoint/eval pauses; clock jitter, a GPU briefly hotter, power noise) "
            "with an incident",
            f"{t['healthy_runs_with_incidents']}/{healthy}",
            "0",
        ),
        _row(
            "runs whose job slows as much for a reason outside the GPUs (same metrics noise) with an incident",
            f"{t['other_slowdown_runs_with_incidents']}/{t['other_slowdown_runs']}",
            "0",
        ),
    ]


def _detector_rows(r: dict[str, object]) -> list[str]:
    s, d, h = _section(r, "straggler"), _section(r, "slowdown"), _section(r, "hang")
    fp, live, sp = (
        _section(r, "false_positives"),
        _section(r, "false_positives_live"),
        _section(r, "speed"),
    )
    delays = "delay_steps_median", "delay_steps_p90", "delay_steps_max"
    return [
        _row(
            "straggler (one rank's local time x1.2, 64 ranks): detected",
            f"{s['detected']}/{s['runs']}, other ranks flagged: {s['wrong_findings']}",
            "all",
        ),
        _row(
            "straggler detection delay, steps (median / p90 / max)",
            " / ".join(str(s[k]) for k in delays),
            "<= 100",
        ),
        _row(
            "job slowdown x1.15: detected",
            f"{d['detected']}/{d['runs']}, early alarms: {d['wrong_findings']}",
            "all",
        ),
        _row(
            "slowdown detection delay, steps (median / p90 / max)",
            " / ".join(str(d[k]) for k in delays),
            "<= 50",
        ),
        _row("slowdown onset error, steps (median)", str(d["onset_error_steps_median"]), ""),
        _row("hang: detected", f"{h['detected']}/{h['runs']}", "all"),
        _row(
            "hang: seconds from the last step to the finding (median / max)",
            f"{_f(h['seconds_after_last_step_median'])} / {_f(h['seconds_after_last_step_max'])}",
            "before the NCCL timeout (600 s)",
        ),
        _row(
            "healthy runs (64 ranks x 1,000 steps, checkpoint + eval pauses) with a finding",
            f"{fp['runs_with_findings']}/{fp['runs']} {fp['findings'] or ''}".strip(),
            "0",
        ),
        _row(
            f"same runs, live StallTracker asked every {live['checks_every_s']} s: stall findings",
            f"{live['stall_findings']} in {live['runs']} runs",
            "0",
        ),
        _row(
            f"statistics for {sp['ranks']:,} ranks x {sp['steps']:,} steps, s "
            f"(median / min of {sp['repeats']})",
            f"{_f(sp['statistics_s_median'])} / {_f(sp['statistics_s_min'])} "
            f"(analyze() with findings: {_f(sp['analyze_s_median'])})",
            "< 2",
        ),
    ]


def _n(value: object) -> str:
    return f"{value:.0f}" if isinstance(value, float) else str(value)


def _f(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


if __name__ == "__main__":
    raise SystemExit(main())
