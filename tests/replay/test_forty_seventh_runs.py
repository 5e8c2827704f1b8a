"""The forty-seventh session's runs: a Jupyter notebook's cells' outputs read as a log, a failed
checkpoint write that the program logged and retried while training went on, MPI's bracketed rank
labels (Intel MPI's ``mpirun -l``, MPICH's ``-prepend-rank``) under a scheduler's epilogue, and a
store's loss printed by hundreds of ranks on their way out after the run said it completed."""

from __future__ import annotations

import json

import detector.sources.runs as runs
import detector.support.compressed as compressed
from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.support.compressed import notebook_outputs
from detector.types import Cause
from tests.support.replaying import incidents_of, write_run

# --- a notebook's outputs ---------------------------------------------------------------------


def _notebook(outputs: list[dict[str, object]]) -> str:
    cells = [{"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["!torchrun --nproc_per_node 2 train.py\n"],
              "outputs": outputs}]
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5},
                      indent=1)


def _stream(lines: list[str], name: str = "stdout") -> dict[str, object]:
    return {"output_type": "stream", "name": name, "text": [line + "\n" for line in lines]}


def test_a_notebooks_outputs_are_read_as_its_log(tmp_path, ruleset: RuleSet) -> None:
    # the training ran in a notebook cell; its output holds rank 1's CUDA out of memory and the
    # other rank's watchdog; nothing else was attached
    nb = _notebook([
        _stream([f"[rank0]: epoch 1 | step {s}/900 | loss 2.1 | 880 ms/step" for s in range(40, 400, 40)]),
        _stream([
            "[rank1]: Traceback (most recent call last):",
            '[rank1]:   File "/home/u/train.py", line 88, in <module>',
            "[rank1]:     loss.backward()",
            "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity"
            " of 23.64 GiB of which 1.12 GiB is free.",
            "[rank0]:[E1115 02:41:10.118431882 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation"
            " timeout: WorkNCCL(SeqNum=4211, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600011"
            " milliseconds before timing out.",
        ], "stderr"),
    ])
    seen = incidents_of(tmp_path, {"finetune.ipynb": nb}, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM
    assert seen[0].rank == 1


def test_a_notebooks_errors_are_read_without_terminal_colours() -> None:
    nb = _notebook([{"output_type": "error", "ename": "RuntimeError", "evalue": "NCCL error",
                     "traceback": ["\x1b[0;31m-----------\x1b[0m", "\x1b[0;31mRuntimeError\x1b[0m: NCCL error"]}])
    text = notebook_outputs(nb.encode())
    assert text is not None
    assert b"RuntimeError: NCCL error\n" in text
    assert b"\x1b" not in text
    assert notebook_outputs(b'{"not": "a notebook"}') is None
    assert notebook_outputs(b"\x00\x01 binary") is None


def test_a_finished_notebook_with_an_old_application_fault_in_the_kernel_log_is_healthy(tmp_path, ruleset: RuleSet) -> None:
    # the kernel log beside it holds an Xid 13 of another program (a local model server) from
    # before the job; the notebook's training finished: no incident (the notebook once went unread,
    # and the fault alone made an illegal memory access of it)
    nb = _notebook([
        _stream([f"epoch 1 | step {s}/3000 | loss 1.9 | 902 ms/step" for s in range(40, 3040, 40)]),
        _stream(["training done in 0:45:12, best val_loss 0.8271"]),
    ])
    dmesg = ("Nov 15 01:26:51 rig2 kernel: NVRM: Xid (PCI:0000:05:00): 13, pid=214000, name=ollama_llama_se, "
             "Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address\n")
    assert incidents_of(tmp_path, {"finetune.ipynb": nb, "dmesg.txt": dmesg}, ruleset) == []


# --- an exception the program logged and retried -------------------------------------------------


def _retried_write(prefix: str = "") -> list[str]:
    return [
        f"{prefix}2025-06-27 08:22:48,070 | WARNING | ckpt | checkpoint write failed, will retry in 30s (attempt 1/5)",
        f"{prefix}Traceback (most recent call last):",
        f'{prefix}  File "/gpfs/run/utils/ckpt.py", line 80, in save_checkpoint',
        f"{prefix}    torch.save(state, tmp_path)",
        f"{prefix}OSError: [Errno 5] Input/output error",
    ]


def _steps_after(prefix: str = "") -> list[str]:
    return [f"{prefix}2025-06-27 {8 + n // 5:02d}:{(n % 5) * 12:02d}:10,000 | INFO | train | step {200 * (n + 1)}/4036 | loss 5.9"
            for n in range(20)]


def test_a_checkpoint_write_retried_while_training_went_on_is_no_failure(tmp_path, ruleset: RuleSet) -> None:
    # the stderr holds the traceback the program logged before retrying; the stdout beside it
    # shows the retry saving the checkpoint and training going on to its end
    out = [
        "2025-06-27 08:23:22,070 | INFO | ckpt | saved checkpoint to /gpfs/run/checkpoints/step_00008000 (attempt 2/5)",
        *_steps_after()[2:],
        "2025-06-27 12:16:54,624 | INFO | train | training finished: 4036 steps, final loss 5.5540",
    ]
    files = {"mistral_run38.2167339": "\n".join(out) + "\n", "mistral_run38.2167339.err": "\n".join(_retried_write()) + "\n"}
    assert incidents_of(tmp_path, files, ruleset) == []


def test_a_retried_write_that_training_did_not_go_on_after_is_the_failure(tmp_path, ruleset: RuleSet) -> None:
    # the same words, but the job's log stops there: the retry did not save the run
    out = ["2025-06-27 08:10:22,070 | INFO | train | step 200/4036 | loss 7.8"]
    files = {"mistral_run38.2167339": "\n".join(out) + "\n", "mistral_run38.2167339.err": "\n".join(_retried_write()) + "\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION


# --- MPI's bracketed rank labels ------------------------------------------------------------------


def _epilogue() -> list[str]:
    return [
        "",
        "======================================================================================",
        "                  Resource Usage on 2025-01-13 12:17:20:",
        "   Job Id:             139711725.gadi-pbs",
        "   Project:            wb00",
        "   Exit Status:        0",
        "   Service Units:      3582.93",
        "   NCPUs Requested:    192                    NCPUs Used: 192",
        "                                              CPU Time Used: 1340:31:18",
        "   Memory Requested:   1.46TB                 Memory Used: 412.31GB",
        "   NGPUs Requested:    64                GPU Utilisation: 4352%",
        "   Walltime requested: 12:00:00            Walltime Used: 06:59:25",
        "   JobFS requested:    100.0MB                JobFS used: 0B",
        "======================================================================================",
    ]


def test_mpi_bracketed_rank_labels_name_the_rank_of_an_exception(tmp_path, ruleset: RuleSet) -> None:
    # mpirun -l: every line of the job's output begins with "[rank] "; rank 5 raises, the others
    # time out in the next allreduce
    err = [
        *[f"[{r}] [W Utils.hpp:133] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated" for r in range(8)],
        "[5] Traceback (most recent call last):",
        '[5]   File "/scratch/wb00/llm/train.py", line 211, in <module>',
        "[5]     batch = next(it)",
        "[5] KeyError: 'input_ids'",
        *[f"[{r}] [rank{r}]:[E0113 06:31:02.011000000 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective"
          f" operation timeout: WorkNCCL(SeqNum=881, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for"
          " 600021 milliseconds before timing out." for r in (0, 1, 2, 3, 4, 6, 7)],
    ]
    out = [f"[0] 2025-01-13 {5 + n // 6:02d}:{(n % 6) * 10:02d}:00,000 | INFO | train | step {500 * (n + 1)}/22082 | loss 4.8"
           for n in range(6)] + _epilogue()
    seen = incidents_of(tmp_path, {"job.sh.e139711725": "\n".join(err) + "\n", "job.sh.o139711725": "\n".join(out) + "\n"},
                        ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION
    assert seen[0].rank == 5


def test_a_programs_pids_in_brackets_are_no_ranks(tmp_path, ruleset: RuleSet) -> None:
    # "[4456] ..." before each line is the process's pid (a script's own logging), not a rank
    lines = [f"[{4452 + r}] Initializing process group with: {{'RANK': '{r}', 'WORLD_SIZE': '8'}}" for r in range(8)]
    lines += [f"[{4452 + r}] epoch 0 step {s} loss 1.5" for s in range(3) for r in range(8)]
    lines += ["[4455] RuntimeError: CUDA error: unspecified launch failure"]
    seen = incidents_of(tmp_path, {"out.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen
    assert seen[0].rank != 4455


# --- a store lost on the way out, after training completed ----------------------------------------


def test_a_stores_loss_printed_by_hundreds_of_ranks_after_training_completed_is_healthy(tmp_path, ruleset: RuleSet) -> None:
    # rank 0 printed that training completed and left, taking the TCPStore with it; the other
    # ranks' heartbeat monitors each print the store's loss with a stack: far more than a few lines
    lines = [f"[rank0]:step {s} loss 5.0" for s in range(990, 1001)]
    lines += ["Training complete! Final step: 1000"]
    frames = [f"frame #{n}: <unknown function> + 0x5be484e (0x7fffdc63e84e in /opt/torch/lib/libtorch_cpu.so)" for n in range(9)]
    for r in range(1, 64):
        lines += [f"[rank{r}]:[W625 07:29:49.676532219 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=28,"
                  " addr=frontier00214-hsn1:60590, remote=frontier00095:3442)",
                  "Exception raised from recvBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:678 (most recent call first):",
                  *frames, "",
                  f"[rank{r}]:[W625 07:29:49.730232563 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Failed"
                  ' to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early)']
    assert incidents_of(tmp_path, {"job-4899248.out": "\n".join(lines) + "\n"}, ruleset) == []


def test_a_stores_loss_without_a_word_that_training_completed_is_still_a_failure(tmp_path, ruleset: RuleSet) -> None:
    lines = [f"[rank0]:step {s} loss 5.0" for s in range(990, 1001)]
    for r in range(1, 64):
        lines += [f"[rank{r}]:[W625 07:29:49.730232563 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Failed"
                  ' to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early)']
    assert incidents_of(tmp_path, {"job-4899248.out": "\n".join(lines) + "\n"}, ruleset) != []


def test_a_notebook_too_large_to_read_is_said_and_skipped(tmp_path, ruleset: RuleSet, monkeypatch) -> None:
    # (the limit made small for the test: 64 MiB in use)
    monkeypatch.setattr(compressed, "NOTEBOOK_MAX", 1024)
    monkeypatch.setattr(runs, "NOTEBOOK_MAX", 1024)
    nb = _notebook([_stream([f"step {s} loss 1.0" for s in range(200)])])
    run = write_run(tmp_path, {"big.ipynb": nb, "rank0.log": "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered\n"})
    report = replay_path(run, ruleset)
    assert any("big.ipynb" in w and "larger than" in w for w in report.warnings)
    assert report.incidents and report.incidents[0].cause is Cause.ILLEGAL_MEMORY_ACCESS


# --- a port that flapped and came back, seen by NCCL and by the kernel ------------------------------


def _iterations(first: int, count: int, hour: int, minute: int = 0, second: int = 13) -> list[str]:
    return [f"8191:  [2025-07-20 {hour:02d}:{minute + 2 * n:02d}:{second:02d}] iteration {first + 20 * n:8d}/  500000 | elapsed time per"
            " iteration (ms): 7650.1 | lm loss: 2.256385E+00 |" for n in range(count)]


def _flap(wording: str = "Got async event : ") -> list[str]:
    return [f"6101: h200-01518:329215:329428 [5] NCCL WARN NET/IB : mlx5_5:1 {wording}port error",
            f"6101: h200-01518:329215:329428 [5] NCCL WARN NET/IB : mlx5_5:1 {wording}port active"]


def test_a_port_flap_that_nccl_and_the_kernel_both_saw_and_training_rode_through_is_healthy(tmp_path, ruleset: RuleSet) -> None:
    # NCCL's port error and port active, and the node's kernel "Link down" and "Link up" two
    # seconds apart: one flap seen twice (each once kept the other from being read as recovered)
    # (the flap's lines take the time of the step line before them, 03:11:40: within a minute of the kernel's)
    out = [*_iterations(17200, 6, 3, 1, 40), *_flap(), *_iterations(17320, 12, 3, 14)]
    dmesg = ["Jul 20 03:12:34 h200-01518 kernel: mlx5_core 0000:93:00.0 ibp147s0: Link down",
             "Jul 20 03:12:36 h200-01518 kernel: mlx5_core 0000:93:00.0 ibp147s0: Link up"]
    files = {"slurm-9385604.out": "\n".join(out) + "\n", "dmesg-h200-01518.txt": "\n".join(dmesg) + "\n"}
    assert incidents_of(tmp_path, files, ruleset) == []


def test_nccls_newer_wording_of_a_port_that_came_back_is_a_flap(tmp_path, ruleset: RuleSet) -> None:
    # NCCL 2.19 and later: "Got async error event: port active"
    out = [*_iterations(17200, 6, 3, 0), *_flap("Got async error event: "), *_iterations(17320, 12, 3, 14)]
    assert incidents_of(tmp_path, {"slurm-9385604.out": "\n".join(out) + "\n"}, ruleset) == []


def test_a_flap_in_a_log_without_times_is_recovered_when_nothing_failed(tmp_path, ruleset: RuleSet) -> None:
    steps = [f"   0: [rank0]:Training epoch 0, iteration {n}/250000 | global_step: {n} | reduced_train_loss: 2.1" for n in range(4900, 5000, 5)]
    out = steps[:10] + _flap() + steps[10:]
    assert incidents_of(tmp_path, {"slurm-9624778.out": "\n".join(out) + "\n"}, ruleset) == []
    # the same flap, then the ranks' transfers failing: the port is the suspect
    failed = steps[:10] + _flap() + steps[10:12] + [
        "6101: h200-01518:329215:329430 [5] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer"
        " 10.0.4.7<58046> with status=12 opcode=128 len=0 vendor err 129 (Send)"]
    seen = incidents_of(tmp_path / "failed", {"slurm-9624778.out": "\n".join(failed) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.NETWORK


# --- a log's part saved under the log's own name ------------------------------------------------


def test_a_logs_tail_saved_as_out_tail_is_read(tmp_path, ruleset: RuleSet) -> None:
    # an operator attached "tail -n 5000 slurm-3047765.out > slurm-3047765.out.tail" and a ticket
    tail = [f"  {r}: [rank{r}]:[E0301 10:41:{r % 60:02d}.000000000 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught"
            " collective operation timeout: WorkNCCL(SeqNum=88412, OpType=ALLREDUCE, NumelIn=1, NumelOut=1,"
            " Timeout(ms)=600000) ran for 600042 milliseconds before timing out." for r in range(0, 40, 3)]
    tail[1:1] = ["957: [rank957]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 1 has a total"
                 " capacity of 63.98 GiB of which 1.21 GiB is free."]
    files = {"slurm-3047765.out.tail": "\n".join(tail) + "\n",
             "TICKET.md": "## INC-10108: job 3047765 failed\n\n- attached: slurm-3047765.out.tail\n- no hypothesis yet\n"}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM
    assert seen[0].rank == 957


# --- a hung job that sat until its time limit -------------------------------------------------------


def _hung_then_limit(limit: str) -> str:
    lines = [f"[rank{r}]:2024-02-16 20:{m:02d}:05,000 | INFO | step {100 * m + r} | loss 2.1" for m in range(0, 40, 5) for r in range(4)]
    lines += [f"[rank{r}]:[E216 21:12:05.0288{r}4194 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective"
              " operation timeout: WorkNCCL(SeqNum=6763, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran"
              " for 1800038 milliseconds before timing out." for r in (0, 1, 2)]
    lines += [f"slurmstepd: error: *** JOB 6011566 ON dgx022 CANCELLED AT {limit} DUE TO TIME LIMIT ***"]
    return "\n".join(lines) + "\n"


def test_a_job_whose_ranks_timed_out_hours_before_its_time_limit_hung(tmp_path, ruleset: RuleSet) -> None:
    # three ranks timed out in their allreduce at 21:12; rank 3 never came; Slurm's time limit
    # ended the job five hours later: it hung, the limit only ended it
    seen = incidents_of(tmp_path, {"slurm-6011566.out": _hung_then_limit("2024-02-17T02:00:00")}, ruleset)
    assert seen and seen[0].cause is Cause.HANG


def test_a_time_limit_just_after_the_ranks_timed_out_stays_the_stop(tmp_path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, {"slurm-6011566.out": _hung_then_limit("2024-02-16T21:13:00")}, ruleset)
    assert seen and seen[0].cause is Cause.PREEMPTION


def test_untimed_timeouts_printed_before_a_time_limit_are_a_hang(tmp_path, ruleset: RuleSet) -> None:
    # torch 2.0's watchdog lines carry no time, nor do the trainer's steps; the timeouts come before
    # slurmstepd's word in the file: the ranks had waited out their timeout before the limit
    lines = [f"[rank{r}]: step {100 * m + r} | loss 2.1" for m in range(0, 40, 5) for r in range(4)]
    lines += [f"[rank{r}]:[E ProcessGroupNCCL.cpp:475] [Rank {r}] Watchdog caught collective operation timeout:"
              " WorkNCCL(SeqNum=6763, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800038"
              " milliseconds before timing out." for r in (0, 1, 2)]
    lines += ["slurmstepd: error: *** JOB 6011566 ON dgx022 CANCELLED AT 2024-02-17T02:00:00 DUE TO TIME LIMIT ***"]
    seen = incidents_of(tmp_path, {"slurm-6011566.out": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.HANG


# --- torchrun's word of a SIGABRT among the ranks' watchdog takedowns ------------------------------


def test_a_workers_sigabrt_within_a_minute_of_the_watchdogs_taking_ranks_down_is_theirs(tmp_path, ruleset: RuleSet) -> None:
    # a log's tail as an operator kept it: ranks 2 and 3's watchdogs time out and take their
    # processes down; torchrun's summary names rank 1's exit -6 ten seconds before (its own
    # watchdog's lines were cut): the abort is the watchdog's, not a crash
    lines = []
    for r in (2, 3):
        lines += [f"[rank{r}]:[E215 19:47:50.55373{r}962 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective operation"
                  " timeout: WorkNCCL(SeqNum=17298, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600017"
                  " milliseconds before timing out.",
                  f"[rank{r}]:[E215 19:47:50.55373{r}516 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Process"
                  f" group watchdog thread terminated with exception: [Rank {r}] Watchdog caught collective operation timeout"]
    lines += ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
              "============================================================",
              "train.py FAILED",
              "------------------------------------------------------------",
              "Root Cause (first observed failure):",
              "[0]:",
              "  time      : 2024-02-15_19:47:40",
              "  host      : hgx-a16-05",
              "  rank      : 1 (local_rank: 1)",
              "  exitcode  : -6 (pid: 2095982)",
              "  error_file: <N/A>",
              "  traceback : Signal 6 (SIGABRT) received by PID 2095982",
              "============================================================"]
    seen = incidents_of(tmp_path, {"job-328065.log.tail": "\n".join(lines) + "\n"}, ruleset)
    assert not seen or seen[0].cause is not Cause.CRASH_SIGNAL
