"""The thirty-second session's readings: a whole node slower than the others (its ranks are half
the job, no outlier among the ranks), one of two ranks slower than the other, timing lines rank 0
(or srun's task 0) prints for every rank, and a Kubeflow pod's log whose logger names several
ranks."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.sources.prefixes import PrefixStyle
from detector.types import Cause
from tests.support.replaying import incidents_of


def _pod_log(ranks: range, slow: bool, steps: int = 60, wait_apart: bool = True, onset: int = 0) -> str:
    """A pod's (node's) log of several ranks, one "| INFO | rank N |" timing line per rank every
    ten steps; a slow pod computes 1.8 times longer from line ``onset`` on and the other pod's
    ranks wait for it in the all-reduce."""
    lines = []
    for i in range(steps):
        step = 24000 + 10 * i
        for rank in ranks:
            late = slow and i >= onset
            jitter = ((i * 7 + rank * 13) % 10) / 100
            fwd = 4.2 * (1.8 if late else 1.0) + jitter
            wait = 0.2 + jitter if late else 3.6 + jitter
            minute, second = divmod(i * 75 + rank, 60)
            timing = f"fwd_bwd {fwd * 1000:7.1f} ms | allreduce {wait * 1000:7.1f} ms" if wait_apart else \
                f"fwd_bwd {fwd * 1000:7.1f} ms"
            lines.append(f"2024-11-17 {6 + minute // 60:02d}:{minute % 60:02d}:{second:02d},579 | INFO | rank {rank:2d} | "
                         f"step {step:7d} | loss 1.7157 | {timing} | data 0.002 s")
    return "\n".join(lines) + "\n"


def _two_pods(slow_pod: str | None, **kw: object) -> dict[str, str]:
    """A Kubeflow PyTorchJob's two pods of eight ranks each (master-0: ranks 0-7, worker-0: 8-15),
    each log opening with NCCL's line that names its host."""
    def nccl(host: str) -> str:
        return f"{host}:352307:352307 [3] NCCL INFO Bootstrap : Using bond0:10.96.57.182<0>\n"
    return {
        "llama-ft-master-0.log": nccl("llama-ft-master-0") + _pod_log(range(0, 8), slow_pod == "master", **kw),  # type: ignore[arg-type]
        "llama-ft-worker-0.log": nccl("llama-ft-worker-0") + _pod_log(range(8, 16), slow_pod == "worker", **kw),  # type: ignore[arg-type]
    }


def test_a_node_whose_ranks_all_compute_slower_is_the_straggler(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "worker", _two_pods("worker"), ruleset)
    assert [(i.cause, i.rank, i.node, i.drain) for i in seen] == [(Cause.STRAGGLER, None, "llama-ft-worker-0", False)], seen
    assert "all 8 ranks on llama-ft-worker-0 (ranks 8-15)" in " ".join(seen[0].evidence), seen[0].evidence
    seen = incidents_of(tmp_path / "master", _two_pods("master"), ruleset)
    assert [(i.cause, i.node) for i in seen] == [(Cause.STRAGGLER, "llama-ft-master-0")], seen
    # both pods at the same pace: nothing
    assert incidents_of(tmp_path / "even", _two_pods(None), ruleset) == []


def test_a_slower_node_needs_the_others_to_wait_for_it(tmp_path: Path, ruleset: RuleSet) -> None:
    """Two nodes whose compute differs (pipeline stages, another GPU model) while neither waits
    for the other: no straggler. Without a wait timing, two nodes are too few to tell."""
    files = _two_pods("worker", wait_apart=False)
    assert incidents_of(tmp_path / "nowait", files, ruleset) == []


def test_a_pod_log_whose_logger_names_several_ranks_is_not_one_rank_s(tmp_path: Path, ruleset: RuleSet) -> None:
    """Kubeflow's "<job>-worker-0" is a pod, rank 1 only where a pod runs one process; the
    logger's "| rank 12 |" field in its lines says whose lines they are."""
    from detector.sources.runs import discover

    run = tmp_path / "pods"
    run.mkdir()
    for name, text in _two_pods(None, steps=3).items():
        (run / name).write_text(text)
    files = {f.path.name: f.rank for f in discover(run)[0]}
    # (master-0 keeps rank 0, one of the ranks its lines name: rank 0's own log may print a line
    # for every rank; each line with the logger's field is that rank's all the same)
    assert files == {"llama-ft-master-0.log": 0, "llama-ft-worker-0.log": None}, files
    from detector.sources.lines import LineParser
    from detector.sources.prefixes import strip_prefix

    master = next(f for f in discover(run)[0] if f.path.name == "llama-ft-master-0.log")
    line = "2024-11-17 06:00:08,579 | INFO | rank  3 | step   24000 | loss 1.7157"
    ev, _stamp = LineParser(master, PrefixStyle.NONE, 2024).event_of(strip_prefix(line), line, 1, None)
    assert ev.rank == 3, ev


def _gathered_timings(slow: int | None, steps: int = 60, ranks: int = 8) -> str:
    """srun's task 0 prints one "rank=N step=S fwd_bwd=..." line per rank (timings gathered on rank
    0); the slow rank computes 1.5 times longer and the others wait for it."""
    lines = []
    for i in range(steps):
        for rank in range(ranks):
            fwd = 10.3 * (1.5 if rank == slow else 1.0) + ((i + rank) % 7) / 50
            wait = 0.02 if rank == slow or slow is None else 5.1
            minute, second = divmod(i * 16, 60)
            lines.append(f"0: 2025-08-20 11:{minute % 60:02d}:{second:02d},336 rank={rank} step={7300 + 10 * i} "
                         f"fwd_bwd={fwd:.3f}s optim=0.670s data=0.007s comm_wait={wait:.3f}s")
    return "\n".join(lines) + "\n"


def test_timing_lines_rank_0_prints_for_every_rank_are_each_rank_s(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "slow", {"slurm-4343981.out": _gathered_timings(2)}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.STRAGGLER, 2)], seen
    assert incidents_of(tmp_path / "even", {"slurm-4343981.out": _gathered_timings(None)}, ruleset) == []


def _pair(slow: int | None, wait_apart: bool = True) -> str:
    """Two ranks on one machine (accelerate): the slow one computes 2.2 times longer, the other
    waits for it."""
    lines = []
    for i in range(40):
        for rank in (0, 1):
            late = rank == slow
            fwd = 2.3 * (2.2 if late else 1.0) + ((i * 3 + rank) % 5) / 100
            wait = 0.1 if late or slow is None else 2.8
            timing = f"fwd_bwd {fwd:.3f}s | allreduce_wait {wait:.3f}s" if wait_apart else f"fwd_bwd {fwd:.3f}s"
            minute, second = divmod(i * 7, 60)
            lines.append(f"2024-07-06 12:{minute:02d}:{second:02d}.379 | INFO     | __main__:train_step:214 - [rank {rank}] "
                         f"step {10 * i} | loss 2.7609 | {timing}")
    return "\n".join(lines) + "\n"


def test_one_of_two_ranks_slower_while_the_other_waits(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "slow", {"train.log": _pair(1)}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.STRAGGLER, 1)], seen
    assert incidents_of(tmp_path / "even", {"train.log": _pair(None)}, ruleset) == []
    # two ranks without a wait timing: which one is slow is no question the lines answer
    assert incidents_of(tmp_path / "nowait", {"train.log": _pair(1, wait_apart=False)}, ruleset) == []


def _ib_failure(host: str, own_ip: str, rank: int, peers: list[str], second: int) -> str:
    """One node's NCCL completion errors, each naming the peer it lost, then its watchdog's
    exception (torch 2.3's form)."""
    lines = [f"{host}:118673:118730 [{rank % 4}] NCCL INFO Bootstrap : Using bond0:{own_ip}<0>"]
    for peer in peers:
        lines.append(f"{host}:118673:118730 [{rank % 4}] transport/net_ib.cc:1697 NCCL WARN NET/IB : Got completion "
                     f"from peer {peer}<53154> with status=12 opcode=0 len=0 vendor err 244 (Send) localGid "
                     f"::ffff:{own_ip} remoteGids::ffff:{peer} hca mlx5_7")
    lines.append(f"[rank{rank}]:[E714 14:33:{second:02d}.078109503 ProcessGroupNCCL.cpp:1418] [PG ID 0 PG GUID 0(default_pg) "
                 f"Rank {rank}] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or "
                 "there was a network error, NCCL version 2.19.3")
    return "\n".join(lines) + "\n"


def test_the_node_every_other_node_lost_is_the_network_failure_s(tmp_path: Path, ruleset: RuleSet) -> None:
    """Four nodes: three lose their paths to 10.0.35.162, which loses its paths to each of them
    (its link failed). The first error printed is on another node; the node they all name is
    the one that failed, and their losses are its incident's, not incidents of their own."""
    ips = {"hgx-h100-011": "10.0.35.159", "hgx-h100-012": "10.0.35.160", "hgx-h100-013": "10.0.35.161",
           "hgx-h100-014": "10.0.35.162"}
    files = {f"{host}.log": _ib_failure(host, ip, 4 * i + 1, ["10.0.35.162"] if host != "hgx-h100-014" else
                                        ["10.0.35.159", "10.0.35.160", "10.0.35.161"], 15 + i)
             for i, (host, ip) in enumerate(ips.items())}
    seen = incidents_of(tmp_path / "one", files, ruleset)
    assert [(i.cause, i.node) for i in seen] == [(Cause.NETWORK, "hgx-h100-014")], seen
    # a switch's outage: each node names another peer, none stands out: the first error stays
    ring = {f"{host}.log": _ib_failure(host, ip, 4 * i + 1, [list(ips.values())[(i + 1) % 4]], 15 + i)
            for i, (host, ip) in enumerate(ips.items())}
    seen = incidents_of(tmp_path / "ring", ring, ruleset)
    assert seen and seen[0].node == "hgx-h100-011", seen


_LOADER_DUMP = [
    "Timeout (0:05:00)!",
    "Thread 0x00007f2e10886640 (most recent call first):",
    '  File "/usr/lib/python3.12/multiprocessing/queues.py", line 113 in get',
    '  File "/opt/conda/lib/python3.12/site-packages/torch/utils/data/dataloader.py", line 1243 in _try_get_data',
    '  File "/opt/conda/lib/python3.12/site-packages/torch/utils/data/dataloader.py", line 1458 in _next_data',
    '  File "/app/run_clm.py", line 601 in main',
]


def _accelerate_hang(dump: list[str]) -> str:
    """Two ranks under accelerate's torchrun in one console: rank 0 (whose trainer prints
    unprefixed) stops, faulthandler's watchdog dumps its stack unprefixed, rank 1 times out."""
    lines = [f"{{'loss': 5.9{i}, 'grad_norm': 0.23, 'learning_rate': 2.45e-05, 'epoch': 0.12}}" for i in range(5)]
    lines += dump
    lines += [
        "[rank1]:[E0927 22:53:13.101993960 ProcessGroupNCCL.cpp:759] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=2504, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=1200000) "
        "ran for 1200022 milliseconds before timing out.",
        "[rank1]:[F0927 22:53:19.559142888 ProcessGroupNCCL.cpp:1660] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
        "Terminating the process after attempting to dump debug info, due to collective timeout or exception.",
        "E0927 22:53:25.227000 102951 torch/distributed/elastic/multiprocessing/api.py:882] failed (exitcode: -6) "
        "local_rank: 1 (pid: 102957) of binary: /usr/bin/python3",
    ]
    return "\n".join(lines) + "\n"


def test_an_unplaced_dump_of_the_data_loader_is_the_stopped_rank_s(tmp_path: Path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path / "dump", {"train.log": _accelerate_hang(_LOADER_DUMP)}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.DATA_LOADER_STALL, 0)], seen
    # the same hang without the dump: a hang
    seen = incidents_of(tmp_path / "bare", {"train.log": _accelerate_hang([])}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.HANG, 0)], seen


def test_a_dump_in_hugging_face_s_streaming_reader_is_a_data_stall(tmp_path: Path, ruleset: RuleSet) -> None:
    """torchtitan iterates Hugging Face's streaming dataset without a DataLoader: its frames are
    where the stopped rank waits for its data."""
    dump = ["Timeout (0:10:00)!", "Thread 0xe35787c79422 (most recent call first):",
            '  File "/usr/local/lib/python3.10/dist-packages/fsspec/implementations/local.py", line 377 in read',
            '  File "/usr/local/lib/python3.10/dist-packages/datasets/iterable_dataset.py", line 2093 in __iter__',
            '  File "/app/torchtitan/train.py", line 321 in next_batch']
    seen = incidents_of(tmp_path / "hf", {"train.log": _accelerate_hang(dump)}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.DATA_LOADER_STALL, 0)], seen


def test_the_nvidia_driver_s_build_date_is_not_the_log_s_year() -> None:
    """dmesg's "loading NVIDIA UNIX x86_64 Kernel Module 535.161.08 Sun Jun 16 19:53:43 UTC 2024"
    is when the driver was built: a year taken from it put a glog-stamped launcher a year early,
    and a kernel fault days before the job inside it."""
    from detector.sources.timestamps import find_year

    boot = ("[   16.427636] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.161.08  Sun Jun 16 19:53:43 UTC 2024\n"
            "[   21.575770] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  535.161.08  "
            "Sun Jun 16 19:53:43 UTC 2024\n")
    assert find_year(boot) is None
    assert find_year(boot + "[Sun Feb  2 12:03:50 2025] NVRM: Xid (PCI:0000:46:00): 31, pid=381127\n") == 2025


def _finished_run_with_an_untimed_xid(done: bool) -> dict[str, str]:
    ranks = {f"train-{r}.out": "\n".join(
        [f"[rank{r}]:[W1014 14:09:04.781153440 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been "
         "destroyed before we destruct ProcessGroupNCCL."] if r else
        [f"{{'loss': 6.5{i}, 'grad_norm': 0.71, 'learning_rate': 6.0e-04, 'epoch': 0.09}}" for i in range(5)]
        + (["{'train_runtime': 1372.5799, 'train_samples_per_second': 326.873, 'train_loss': 6.537057, 'epoch': 3.0}"]
           if done else [])) + "\n" for r in range(4)}
    ranks["dmesg-gpu-node-081.txt"] = ("[1343906.683587] NVRM: GPU at PCI:0000:df:00: GPU-8b7aadfb-9223-2b58-0e1c-7f5e8aa9c551\n"
                                       "[1343906.683787] NVRM: Xid (PCI:0000:df:00): 43, pid=36115, name=pt_main_thread, "
                                       "Ch 00000020, engmask 00000101\n")
    return ranks


def test_an_untimed_kernel_fault_of_a_run_that_completed_cleanly_is_an_earlier_job_s(tmp_path: Path, ruleset: RuleSet) -> None:
    assert incidents_of(tmp_path / "done", _finished_run_with_an_untimed_xid(True), ruleset) == []
    # the same fault beside logs that just stop: it may be what stopped them
    seen = incidents_of(tmp_path / "stopped", _finished_run_with_an_untimed_xid(False), ruleset)
    assert [i.cause for i in seen] == [Cause.ILLEGAL_MEMORY_ACCESS], seen


def test_nvrx_s_straggler_warning_names_the_rank_it_is_about(tmp_path: Path, ruleset: RuleSet) -> None:
    """NVIDIA Resiliency Extension's detector (NeMo, Megatron-Bridge) prints on rank 0 the ranks
    whose performance score fell below its threshold, the worst first."""
    lines = [f"[rank0]:[NeMo I 2025-03-02 10:{m:02d}:00 train:120] step {100 * m} loss 2.31" for m in range(5)]
    lines += ["[rank0]:GPU relative performance:", "[rank0]: Worst performing 2/16 ranks:",
              "[rank0]:  Rank=5 Node=gpu-017 Score=0.62", "[rank0]:  Rank=11 Node=gpu-018 Score=0.97",
              "[rank0]:STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: [5]",
              "[rank0]:[NeMo I 2025-03-02 10:06:00 train:120] step 600 loss 2.30",
              "[rank0]:STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: [5, 11]"]
    seen = incidents_of(tmp_path / "nvrx", {"train.log": "\n".join(lines) + "\n"}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.STRAGGLER, 5)], seen
    # the score report alone (no rank below the threshold): nothing
    quiet = [line for line in lines if "WARNING" not in line]
    assert incidents_of(tmp_path / "quiet", {"train.log": "\n".join(quiet) + "\n"}, ruleset) == []


# --- the review's findings (each reproduced before its fix) ---


def test_rank_0_s_own_log_with_timings_it_gathered_keeps_its_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {}
    for r in range(4):
        lines = [f"2025-08-20 11:{i:02d}:00,336 rank={q} step={7300 + 10 * i} fwd_bwd=10.3{q}s comm_wait=0.5s"
                 for i in range(30) for q in range(4)] if r == 0 else \
            [f"2025-08-20 11:{i:02d}:00,336 step={7300 + 10 * i} loss=2.1" for i in range(30)]
        if r == 0:
            lines += ["Traceback (most recent call last):", '  File "/app/train.py", line 10, in <module>',
                      "RuntimeError: CUDA error: an illegal memory access was encountered"]
        files[f"rank{r}.log"] = "\n".join(lines) + "\n"
    seen = incidents_of(tmp_path / "r0", files, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.ILLEGAL_MEMORY_ACCESS, 0)], seen


def test_an_epoch_s_end_is_no_end_of_the_run_for_an_untimed_kernel_fault(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {f"train-{r}.out": "\n".join(
        [f"[rank{r}] epoch 0 step {i} loss 6.5{i}" for i in range(5)]
        + [f"[rank{r}] Epoch 0 training complete, starting epoch 1"]
        + [f"[rank{r}] epoch 1 step {i} loss 5.5{i}" for i in range(5)]) + "\n" for r in range(4)}
    files["dmesg-gpu-node-081.txt"] = ("[1343906.683787] NVRM: Xid (PCI:0000:df:00): 79, pid=36115, name=pt_main_thread, "
                                       "GPU has fallen off the bus.\n")
    seen = incidents_of(tmp_path / "epoch", files, ruleset)
    assert [i.cause for i in seen] == [Cause.GPU_HARDWARE], seen


def test_an_early_data_loader_dump_that_training_went_on_after_is_no_stall(tmp_path: Path, ruleset: RuleSet) -> None:
    text = _accelerate_hang(_LOADER_DUMP).split("\n")
    went_on = [f"{{'loss': 4.{i:03d}, 'grad_norm': 0.23, 'learning_rate': 2.45e-05, 'epoch': 1.12}}" for i in range(300)]
    at = text.index(_LOADER_DUMP[-1]) + 1
    seen = incidents_of(tmp_path / "early", {"train.log": "\n".join(text[:at] + went_on + text[at:])}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.HANG, 0)], seen


def test_the_node_the_others_lost_names_no_peer_of_its_own(tmp_path: Path, ruleset: RuleSet) -> None:
    """Older NCCL's "Got completion with status=12" names no peer: the node every other node lost
    is the one that failed all the same."""
    ips = {"hgx-h100-011": "10.0.35.159", "hgx-h100-012": "10.0.35.160", "hgx-h100-013": "10.0.35.161"}
    files = {f"{host}.log": _ib_failure(host, ip, 4 * i + 1, ["10.0.35.162"], 15 + i) for i, (host, ip) in enumerate(ips.items())}
    files["hgx-h100-014.log"] = (
        "hgx-h100-014:219511:219568 [1] transport/net_ib.cc:1697 NCCL WARN NET/IB : Got completion with status=12 "
        "opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.0.35.162 remoteGids::ffff:10.0.35.159 hca mlx5_6\n")
    seen = incidents_of(tmp_path / "nopeer", files, ruleset)
    assert [(i.cause, i.node) for i in seen] == [(Cause.NETWORK, "hgx-h100-014")], seen


def test_nvrx_s_warning_as_it_prints_its_set_of_straggler_ids(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [f"[rank0]:[NeMo I 2025-03-02 10:{m:02d}:00 train:120] step {100 * m} loss 2.31" for m in range(5)]
    lines += ["[rank0]:STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: "
              "{StragglerId(rank=5, node='gpu-017')}",
              "[rank0]:STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: "
              "{StragglerId(rank=11, node='gpu-018'), StragglerId(rank=5, node='gpu-017')}"]
    seen = incidents_of(tmp_path / "set", {"train.log": "\n".join(lines) + "\n"}, ruleset)
    assert [(i.cause, i.rank) for i in seen] == [(Cause.STRAGGLER, 5)], seen


def test_the_node_straggler_check_on_1600_nodes_none_slower() -> None:
    """12,800 ranks on 1,600 nodes, none slower: no straggler. The by-node pass looks only at the
    node slowest in some window (comparing every node with every other took 13.6 s here; speed is
    measured in bench/, not asserted)."""
    import numpy as np

    from detector.stats.config import StatsConfig
    from detector.stats.series import StepGrid
    from detector.stats.straggler import _detect_group, _groups

    ranks, cols = 12800, 60
    rng = np.random.default_rng(3)
    local = 1.0 + rng.normal(0, 0.01, (ranks, cols))
    grid = StepGrid(ranks=np.arange(ranks), col_steps=np.arange(cols), col_segments=np.zeros(cols, dtype=np.int64),
                    times=np.tile(np.arange(cols, dtype=float), (ranks, 1)), durations=np.full((ranks, cols), np.nan),
                    local_keys=("fwd", "wait"), local=(local, local.copy()), intervals=np.ones((ranks, cols)),
                    step_gaps=np.ones((ranks, cols)), last_time=np.full(ranks, float(cols)),
                    last_col=np.full(ranks, cols - 1), nodes=tuple(f"n{r // 8}" for r in range(ranks)),
                    local_ranks=tuple(r % 8 for r in range(ranks)), order=None, row_starts=np.arange(ranks) * cols,
                    sample_cols=None)
    groups = _groups(grid)
    assert groups is not None and len(groups) == 1600
    assert _detect_group(grid, 0, groups, np.ones(cols), StatsConfig(), 20, 3) == []


def test_a_test_runner_s_fail_behind_a_syslog_stamp_is_no_host() -> None:
    from detector.support.hosts import names_a_host

    assert not names_a_host("FAIL") and not names_a_host("ERROR") and names_a_host("gpu-node-081")


def test_a_lazy_export_named_like_its_module_survives_a_sibling_s_import() -> None:
    """``from detector.stats import analyze_table`` first imported detector.stats.analyze, which
    bound the package's ``analyze`` to the module: a later ``from detector.stats import analyze``
    got the module, and every replay in that process skipped its step statistics (the throttle
    benchmark read 0/100). A fresh interpreter, because the order matters."""
    import subprocess
    import sys

    code = ("from detector.stats import analyze_table\nfrom detector.stats import analyze\n"
            "assert callable(analyze) and callable(analyze_table), type(analyze)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
