"""The thirty-ninth session's run layouts: a CI job's log that prints the node's kernel log at its
end (the kernel's own stamps, not the runner's, date its lines), a GPU fault the kernel log shows
before a later load of the driver, link flaps of a run that finished, and the heartbeat monitor's
store loss in torch 2.4's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.sources.timestamps import parse_timestamp
from detector.types import Cause, StreamKind
from tests.support.replaying import incidents_of

_HOST = "dgx-h100-044"


def _ci_job(*, hang: bool, kernel: list[str], ok: bool = False) -> str:
    """A CI runner's job log (every line behind the runner's stamp): eight ranks of one torchrun
    on one node, then the step that prints the node's kernel log at the end."""
    out: list[str] = []
    minute = 0

    def say(text: str, second: int = 0) -> None:
        out.append(f"2026-11-13T15:{minute:02d}:{second:02d}.1234567Z {text}")

    say("##[group]Run torchrun --nproc-per-node 8 --tee 3 train.py")
    for local in range(8):
        say(f"[default{local}]:{_HOST}:10{local}:20{local} [{local}] NCCL INFO ncclCommInitRank comm 0x5{local} rank "
            f"{local} nranks 8 cudaDev {local} nvmlDev {local} busId {local + 1}b000 commId 0x77 - Init COMPLETE", 5)
    for minute in range(1, 12):
        for local in range(8):
            if hang and local == 4 and minute > 6:
                continue
            say(f"[default{local}]:step {minute * 100} loss 2.{minute} step_time 0.9{local}s", 10)
    minute = 42 if hang else 12
    if hang:
        for local in range(8):
            if local == 4:
                continue
            say(f"[default{local}]:[rank{local}]:[E1113 15:42:53.597599191 ProcessGroupNCCL.cpp:632] [PG ID 1 PG "
                f"GUID 1 Rank {local}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=115256, "
                "OpType=ALLREDUCE, NumelIn=268435456, NumelOut=268435456, Timeout(ms)=1800000) ran for 1800089 "
                "milliseconds before timing out.", 53)
    elif ok:
        say("[2026-11-13 15:42:50,101] torch.distributed.elastic.agent.server.api: [INFO] [default] worker group "
            "successfully finished. Waiting 300 seconds for other agents to finish.", 50)
    say("##[group]Run journalctl -k -o short-iso --since -2d  (or: cat /dev/kmsg)", 55)
    for line in kernel:
        say(line, 56)
    say("Post job cleanup.", 58)
    return "\n".join(out) + "\n"


def test_a_collectors_stamp_gives_way_to_the_kernel_lines_own() -> None:
    """A runner's (or kubectl --timestamps') stamp before a journald line with its own stamp and
    host: the line happened at the inner time; a rank's line behind the runner's stamp keeps it."""
    inner = parse_timestamp("2026-11-13T15:43:14.3851234Z 2026-11-13T00:29:58.857179+00:00 dgx-h100-044 kernel: "
                            "mlx5_core 0000:cd:00.0 ens8f0np0: Link down", year=2026)
    assert inner is not None and inner.time is not None and inner.host == "dgx-h100-044"
    assert (inner.time.hour, inner.time.minute) == (0, 29)
    outer = parse_timestamp("2026-11-13T15:43:14.3851234Z [default3]:[rank3]: RuntimeError: boom", year=2026)
    assert outer is not None and outer.time is not None and (outer.time.hour, outer.time.minute) == (15, 43)


def test_a_flap_fifteen_hours_before_a_hang_is_not_its_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    """The kernel log printed at the job's end holds a link flap of the night before (its own
    stamps say so; the runner's say only when it was printed): rank 4 hung, nothing to drain."""
    kernel = [f"2026-11-13T00:29:58.857179+00:00 {_HOST} kernel: mlx5_core 0000:cd:00.0 ens8f0np0: Link down",
              f"2026-11-13T00:30:03.051348+00:00 {_HOST} kernel: mlx5_core 0000:cd:00.0 ens8f0np0: Link up"]
    seen = incidents_of(tmp_path / "run", {"ci-job-log.txt": _ci_job(hang=True, kernel=kernel)}, ruleset)
    assert seen and seen[0].cause is Cause.HANG and seen[0].rank == 4, seen
    assert not any(i.drain for i in seen), seen


_KMSG = ["3,67476,1382598864072,-;NVRM: Xid (PCI:0000:1b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen "
         "off the bus.",
         "4,67483,1785958708139,-;pcieport 0000:38:01.0: AER: Corrected error received: 0000:9e:00.0",
         "6,67493,1806311241411,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07  Release Build  "
         "(dvs-builder@U16-I3-B07-2-1)"]


@pytest.mark.parametrize("where", ["ci", "files"])
def test_a_gpu_fault_before_the_driver_was_loaded_again_is_not_a_finished_runs_incident(
        tmp_path: Path, ruleset: RuleSet, where: str) -> None:
    """A kernel log read in seconds since boot shows an Xid 79, then the driver loaded again (a
    reset or a reboot since); the job ran and finished on the GPUs: no incident, nothing drained."""
    if where == "ci":
        files = {"ci-job-log.txt": _ci_job(hang=False, kernel=_KMSG, ok=True)}
    else:
        files = {"train.log": _ci_job(hang=False, kernel=[], ok=True), f"kmsg-{_HOST}.txt": "\n".join(_KMSG) + "\n"}
    assert incidents_of(tmp_path / "run", files, ruleset) == []


def test_a_gpu_fault_before_the_driver_loaded_stays_where_the_job_failed(tmp_path: Path, ruleset: RuleSet) -> None:
    """The same kernel log beside a job whose ranks fail: the fault is not dropped (which of them
    came first is not known from seconds since boot)."""
    kernel = _KMSG[:1] + _KMSG[2:]
    seen = incidents_of(tmp_path / "run", {"ci-job-log.txt": _ci_job(hang=True, kernel=kernel)}, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE, seen


def test_a_flap_after_the_ranks_last_line_of_a_run_that_failed_nowhere(tmp_path: Path, ruleset: RuleSet) -> None:
    """The ranks' last lines are hours before a link went down and came back (another zone's
    clock, or a later job's): the run had stopped writing, nothing of it failed, no incident."""
    log = _ci_job(hang=False, kernel=[], ok=False)
    kernel = (f"Nov 13 23:46:04 {_HOST} kernel: mlx5_core 0000:1f:00.0 ibp31s0: Link down\n"
              f"Nov 13 23:46:13 {_HOST} kernel: mlx5_core 0000:1f:00.0 ibp31s0: Link up\n")
    assert incidents_of(tmp_path / "run", {"train.log": log, f"{_HOST}.journal-k.txt": kernel}, ruleset) == []


def test_a_flap_beside_a_teardown_before_the_group_finished(tmp_path: Path, ruleset: RuleSet) -> None:
    """A recovered flap in a kernel log in seconds since boot, and ranks whose NCCL service thread
    saw its neighbours close at the end, before torchrun said the worker group finished: the
    closes are the shutdown's, the flap did no harm."""
    lines = [f"[default{local}]:{_HOST}:10{local}:20{local} [{local}] NCCL INFO ncclCommInitRank comm 0x5{local} rank "
             f"{local} nranks 2 cudaDev {local} busId {local + 1}b000 - Init COMPLETE" for local in range(2)]
    lines += [f"[default{local}]:step {s} loss 1.{s} step_time 0.5s" for s in range(1, 30) for local in range(2)]
    lines += [f"[default1]:{_HOST}:101:201 [1] NCCL INFO [Service thread] Connection closed by localRank 0",
              "[2026-10-21 12:40:18,085] torch.distributed.elastic.agent.server.api: [INFO] [default] worker group "
              "successfully finished. Waiting 300 seconds for other agents to finish."]
    kernel = ("[1494394.592757] mlx5_core 0000:ac:00.0 ibp172s0: Link down\n"
              "[1494402.408243] mlx5_core 0000:ac:00.0 ibp172s0: Link up\n")
    files = {"train.log": "\n".join(lines) + "\n", f"dmesg-{_HOST}.txt": kernel}
    assert incidents_of(tmp_path / "run", files, ruleset) == []


def test_the_heartbeat_monitors_store_loss_in_torch_2_4_words(ruleset: RuleSet) -> None:
    """torch 2.4's heartbeat monitor reports the store's loss as "Failed to get exception dump
    flag from the global store": read as that (the store's host left), not as a reset link."""
    line = ("[rank1]:[E614 11:14:03.086670611 ProcessGroupNCCL.cpp:1319] [PG 0 Rank 1] Failed to get exception dump "
            "flag from the global store.Connection reset by peer")
    hits = ruleset.match_all(line, StreamKind.RANK_LOG)
    assert any(h.rule.id == "torch.store_dump_flag_failed" for h in hits), hits



def test_a_kernel_log_alone_keeps_its_faults_before_a_reboot(tmp_path: Path, ruleset: RuleSet) -> None:
    """Only a node's kernel log: Xid 79, then the driver loaded after the host rebooted. Nothing
    shows a job that ran well after it; the reboot may be what the fault called for."""
    files = {"dmesg.txt": "\n".join(_KMSG) + "\n"}
    seen = incidents_of(tmp_path / "run", files, ruleset)
    assert seen and seen[0].cause is Cause.GPU_HARDWARE, seen


@pytest.mark.parametrize("line, rank, rest", [
    # Metaflow's task prefix behind its stamp, torchrun's after it
    ("2026-10-21 11:33:22.632 [79250/train/100 (pid 933)] [rank3]: RuntimeError: boom", 3, "RuntimeError: boom"),
    # a logger's bracketed fields name the global rank ("rank=5/32", not local_rank=1)
    ("2026-04-21 02:43:09.891 [67911/train/101 (pid 1794)] 2026-04-21 02:43:09,891 INFO  [host=node0035 rank=5/32 "
     "local_rank=1] trainer: step 20", 5, "trainer: step 20"),
    # Composer's console format
    ("2026-10-10 18:40:15,714: rank2[656503][MainThread]: INFO: llmfoundry.callbacks.step_timer: step=538", 2,
     "step=538"),
])
def test_lines_name_their_rank(line: str, rank: int, rest: str) -> None:
    from detector.sources.prefixes import strip_prefix

    found = strip_prefix(line)
    assert found.rank == rank and found.message.endswith(rest), found


def _timing_run(node: str, ranks: range, slow: int | None, *, factor: float, every: int, lines: int,
                stagger: bool = False) -> dict[str, str]:
    """One file per node of a job whose ranks log "[timing] rank=R step=S fwd_bwd=..." every
    ``every`` steps beside rank 0's step line every 20 steps (Metaflow's task prefix before each
    line); ``stagger``: each rank's file ends at another step (the ranks' last lines, pasted)."""
    files: dict[str, list[str]] = {}
    for rank in ranks:
        host = f"{node}{rank // 4:02d}"
        out = files.setdefault(f"metaflow-1-train-{rank // 4}.log", [])
        shift = (rank % 3) if stagger else 0
        for n in range(shift, lines + shift):
            step = every * (n + 1)
            t = 1000 + step * 9
            stamp = f"2026-04-21 {t // 3600 % 24:02d}:{t // 60 % 60:02d}:{t % 60:02d}.{rank:03d}"
            lead = f"{stamp} [67911/train/{rank // 4} (pid 17{rank // 4})] {stamp.replace('.', ',')} INFO  "
            fields = f"[host={host} rank={rank}/{len(ranks)} local_rank={rank % 4}] trainer: "
            if rank == 0:
                for sub in range(every // 20):
                    out.append(lead + fields + f"step {step - every + 20 * (sub + 1)} | loss 7.1 | step_time 9.00s")
            fwd = 2.0 * (factor if rank == slow else 1.0) + 0.01 * (rank % 5)
            out.append(lead + fields + f"[timing] rank={rank} step={step} fwd_bwd={fwd:.3f}s "
                       f"allreduce_wait={max(0.1, 9.0 - fwd):.3f}s dataloader=0.010s")
    return {name: "\n".join(lines_) + "\n" for name, lines_ in files.items()}


def test_timing_lines_sparser_than_the_step_lines(tmp_path: Path, ruleset: RuleSet) -> None:
    """Each rank's timing line every 80 steps, rank 0's step line every 20: the timings are
    judged on the steps they were printed at, and rank 5's compute, 3.5 times its peers', shows."""
    files = _timing_run("node", range(16), 5, factor=3.5, every=80, lines=20)
    seen = incidents_of(tmp_path / "run", files, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER and seen[0].rank == 5, seen


@pytest.mark.parametrize("factor, slow", [(2.9, True), (1.3, False)])
def test_three_timing_lines_a_rank(tmp_path: Path, ruleset: RuleSet, factor: float, slow: bool) -> None:
    """Three timing lines a rank, the files ending at different steps: a rank at 2.9 times its
    peers' compute in every one of them is the straggler; at 1.3 times, three lines tell nothing."""
    files = _timing_run("gpu", range(16), 6, factor=factor, every=50, lines=3, stagger=True)
    seen = incidents_of(tmp_path / "run", files, ruleset)
    if slow:
        assert seen and seen[0].cause is Cause.STRAGGLER and seen[0].rank == 6, seen
    else:
        assert seen == [], seen


def test_the_resiliency_extensions_report_names_a_low_scoring_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    """NVRx's straggler report, printed by rank 0: rank 9 scores 0.46 among the worst ranks (the
    detector's threshold is 0.7), the others near 1: rank 9 is the straggler, on its node."""
    init = [f"[default{lr}]:gpu-{n:02d}:10{lr}:20{lr} [{lr}] NCCL INFO ncclCommInitRank comm 0x5{lr} rank {8 * n + lr} "
            f"nranks 16 cudaDev {lr} busId {lr + 1}b000 - Init COMPLETE" for n in (0, 1) for lr in range(8)]
    steps = [f"[default0]: [2026-04-24 13:{m:02d}:00] iteration {m * 10}/ 1000 | elapsed time per iteration (ms): 5400.0"
             for m in range(10, 30)]
    report = ["[default0]:GPU relative performance:", "[default0]: Worst performing 3/16 ranks:",
              "[default0]:  Rank=9 Node=gpu-01 Score=0.46", "[default0]:  Rank=3 Node=gpu-00 Score=0.96",
              "[default0]:  Rank=12 Node=gpu-01 Score=0.97", "[default0]: Best performing 1/16 ranks:",
              "[default0]:  Rank=5 Node=gpu-00 Score=1.00"]
    files = {"gpu-00/ft_launcher.log": "\n".join(init[:8] + steps + report) + "\n",
             "gpu-01/ft_launcher.log": "\n".join(init[8:]) + "\n"}
    seen = incidents_of(tmp_path / "run", files, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER and seen[0].rank == 9 and not seen[0].drain, seen


@pytest.mark.parametrize("ending", ["detectron2", "torchrun"])
def test_an_old_application_xid_beside_a_run_that_finished(tmp_path: Path, ruleset: RuleSet, ending: str) -> None:
    """dmesg in seconds since boot holds an Xid 43 of another process; the run finished (detectron2's
    "Total training time", its final evaluation after it, or torchrun's worker group succeeding)
    and its ranks closed their NCCL connections on the way out: no incident."""
    host = "node0120"
    lines = [f"{host}:13483{lr}:13488{lr} [{lr}] NCCL INFO comm 0x55d0{lr} rank {lr} nranks 4 cudaDev {lr} nvmlDev {lr} "
             f"busId {lr + 1}e000 commId 0x70f7 - Init COMPLETE" for lr in range(4)]
    lines += [f"[03/16 16:{40 + i // 10:02d}:{i % 10 * 6:02d} d2.utils.events]:  eta: 0:10:00  iter: {i * 20}  "
              f"total_loss: 1.{i:02d}  time: 0.7582  data_time: 0.01" for i in range(1, 40)]
    if ending == "detectron2":
        lines += ["[03/16 17:03:12 d2.engine.hooks]: Overall training speed: 1569 iterations in 0:19:51 (0.7582 s / it)",
                  "[03/16 17:03:12 d2.engine.hooks]: Total training time: 0:24:51 (0:05:00 on hooks)",
                  "[03/16 17:03:15 d2.evaluation.evaluator]: Start inference on 312 batches",
                  "[03/16 17:06:30 d2.evaluation.testing]: copypaste: Task: bbox"]
    else:
        lines += ["I0316 17:03:12.321353 297612 torch/distributed/elastic/agent/server/api.py:525] [default] worker "
                  "group successfully finished. Waiting 300 seconds for other agents to finish."]
    lines += [f"{host}:134835:134910 [3] proxy.cc:1508 NCCL WARN [Proxy Service 7] Failed to execute operation Close "
              "from rank 2, retcode 3"]
    dmesg = ("[   29.660974] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  525.147.05  Wed Mar  5 13:12:41 UTC 2025\n"
             "[38479.594864] NVRM: Xid (PCI:0000:4e:00): 43, pid=540713, name=python, Ch 00000010\n")
    files = {f"machine0_{host}.log": "\n".join(lines) + "\n", f"dmesg-{host}.log": dmesg}
    assert incidents_of(tmp_path / "run", files, ruleset) == []
