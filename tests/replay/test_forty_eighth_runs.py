"""The forty-eighth session's runs: a model that does not split over the parallel sizes asked
for, said without its exception's class; and a rank whose DataLoader worker the OOM killer took,
its node's other ranks and the other nodes reporting InfiniBand completion errors from that
node's address."""

from __future__ import annotations

from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

DATA = Path(__file__).parent / "data" / "forty_eighth"


def test_heads_not_divisible_by_the_tensor_parallel_size_is_a_configuration_error(tmp_path, ruleset: RuleSet) -> None:
    # vLLM's words as a user pasted them, the ValueError's class left out
    seen = incidents_of(tmp_path, {"console.log": (
        "INFO 09-14 10:02:11 llm_engine.py:72] Initializing an LLM engine with config: model='tiiuae/falcon-7b',"
        " tensor_parallel_size=2\n"
        "Total number of attention heads (71) must be divisible by tensor parallel size (2).\n")}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION
    assert not seen[0].drain


def test_a_batch_size_that_divides_is_no_error(tmp_path, ruleset: RuleSet) -> None:
    seen = incidents_of(tmp_path, {"console.log": (
        "global batch size (512) is divisible by data parallel size (64)\n"
        "step 10 | loss 2.31 | 812 ms/step\n")}, ruleset)
    assert seen == []


def _ib(rank: int, host: str, pid: int, own: str, peer: str) -> str:
    return (f"{rank:2d}: {host}:{pid}:{pid + 6} [{rank % 8}] transport/net_ib.cc:1430 NCCL WARN NET/IB : Got completion"
            f" from peer {peer}<38355> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:{own}"
            f" remoteGids::ffff:{peer}\n")


def test_completion_errors_from_a_node_whose_rank_died_are_its_death(tmp_path, ruleset: RuleSet) -> None:
    # rank 27 on dgx162 loses its DataLoader worker to the OOM killer and exits; rank 29 beside it
    # on dgx162 and rank 36 on dgx164 then see completion errors from dgx162's address (rank 29's
    # own, as its localGid says): the transfers to a dead process, not a network fault
    init = "".join(f"{r:2d}: | distributed init (rank {r}): env://, host {h}, local_rank {r % 8}, pid {p}\n"
                   for r, h, p in ((27, "dgx162", 2435164), (29, "dgx162", 2435170), (36, "dgx164", 507638)))
    steps = "".join(f"63:  [2024-02-20 17:{m:02d}:59] iteration {48000 + m * 10:8d}/  250000 | elapsed time per"
                    " iteration (ms): 9196.0 | lm loss: 1.978071E+00 |\n" for m in range(10, 38, 3))
    log = (init + steps
           + "27: ERROR: DataLoader worker (pid 2435530) is killed by signal: Killed. \n"
           + "27: Traceback (most recent call last):\n"
           + '27:   File "/opt/megatron/pretrain_gpt.py", line 237, in <module>\n'
           + "27: RuntimeError: DataLoader worker (pid(s) 2435530) exited unexpectedly\n"
           + "srun: error: dgx162: task 27: Exited with exit code 1\n"
           + _ib(29, "dgx162", 2435170, "10.179.36.13", "10.179.36.13")
           + "29: [E ProcessGroupNCCL.cpp:1182] [Rank 29] NCCL watchdog thread terminated with exception: NCCL error:"
             " remote process exited or there was a network error, NCCL version 2.19.3\n"
           + _ib(36, "dgx164", 507638, "10.179.36.14", "10.179.36.13")
           + "36: [E ProcessGroupNCCL.cpp:1182] [Rank 36] NCCL watchdog thread terminated with exception: NCCL error:"
             " remote process exited or there was a network error, NCCL version 2.19.3\n")
    seen = incidents_of(tmp_path, {"slurm-6579179.out": log}, ruleset)
    assert seen and seen[0].rank == 27 and seen[0].node == "dgx162"
    assert all(s.cause is not Cause.NETWORK for s in seen)


def test_a_stress_tests_report_of_a_thermally_throttled_gpu_is_a_slow_job(tmp_path, ruleset: RuleSet) -> None:
    # the job did not fail, it ran slowly; a node check's only output names the throttled GPU
    seen = incidents_of(tmp_path, {"thermal_results.log": (
        "thermal_results.vmssB3GCE6.1004.120.log:\n"
        "  [RESULT] vmssB3GCE6 | FAILED due to thermal throttling: GPU5 (HW Thermal Slowdown)\n\n"
        "thermal_results.vmssTSERJB.1004.120.log:\n"
        "  [RESULT] vmssTSERJB | PASSED\n")}, ruleset)
    assert seen and seen[0].cause is Cause.STRAGGLER
    assert not seen[0].drain


def test_a_hung_rank_whose_batches_had_come_ever_slower_was_starved_of_its_input(tmp_path, ruleset: RuleSet) -> None:
    # each rank logs its step's breakdown; rank 5's time waiting for its next batch climbs far
    # above its peers', then it stops: the others time out waiting for it in the all-reduce
    lines = []
    for step in range(1, 121):
        for rank in range(8):
            data = 30.0 + step * 0.3 if rank == 5 and step > 40 else 0.01 + (rank % 3) * 0.004
            mm, ss = divmod(step * 4, 60)
            lines.append(f"2024-02-24 07:{20 + mm:02d}:{ss:02d},743 [rank{rank}] step {step} | data {data:.3f}s"
                         f" | fwd+bwd 3.{700 + rank:03d}s | allreduce wait 0.010s")
    for rank in range(8):
        if rank != 5:
            lines.append(f"[rank{rank}]:[E224 08:40:01.118431882 ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught"
                         " collective operation timeout: WorkNCCL(SeqNum=4211, OpType=ALLREDUCE, NumelIn=1, NumelOut=1,"
                         " Timeout(ms)=600000) ran for 600011 milliseconds before timing out.")
    seen = incidents_of(tmp_path, {"train.log": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].rank == 5
    assert seen[0].cause is Cause.DATA_LOADER_STALL


_BANNER = ("W1105 {t}.380000 1862313 torch/distributed/run.py:793] \n"
           "W1105 {t}.381000 1862313 torch/distributed/run.py:793] *****************************************\n"
           "W1105 {t}.381000 1862313 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each"
           " process to be 1 in default, to avoid your system being overloaded, please further tune the variable for"
           " optimal performance in your application as needed. \n"
           "W1105 {t}.381000 1862313 torch/distributed/run.py:793] *****************************************\n")


def _steps(day: int, hour: int, n: int) -> str:
    return "".join(f"[2025-11-{day:02d} {hour:02d}:{i // 60:02d}:{i % 60:02d},001][finetune][INFO] - step {i} | loss 1.1"
                   f" | 600 ms/step\n" for i in range(1, n))


def test_logrotates_older_copy_of_a_crashed_launch_before_one_that_completed(tmp_path, ruleset: RuleSet) -> None:
    # train.log.1 (older) holds a launch that ran out of GPU memory; train.log, two days later,
    # a new launch that trained to its end: the job is healthy now
    older = (_BANNER.format(t="23:36:19") + _steps(3, 23, 300)
             + "[rank7]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 7 has a total"
               " capacity of 39.39 GiB of which 1.17 GiB is free.\n")
    newest = (_BANNER.format(t="00:39:24") + _steps(5, 0, 1142)
              + "[2025-11-05 00:53:17,283][finetune][INFO] - Training completed: 1142 steps in 11:50\n")
    assert incidents_of(tmp_path / "ok", {"logs/train.log.1": older, "logs/train.log": newest}, ruleset) == []
    # the other way round (the newest launch crashed), the crash is the run's
    seen = incidents_of(tmp_path / "bad", {"logs/train.log.1": newest.replace("2025-11-05", "2025-11-03"),
                                           "logs/train.log": older.replace("2025-11-03", "2025-11-05")}, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM and seen[0].rank == 7


def test_a_launchers_store_connection_reset_after_the_job_completed_is_its_teardown(tmp_path, ruleset: RuleSet) -> None:
    # the workers' own logs (torchrun --log-dir) say training completed; node 1's agent, in the
    # job's output, then loses its connection to the store on node 0, whose agent has left
    worker = "".join(f"[2024-08-24 03:{m:02d}:30,839][train][INFO] - step {m * 25}/3763 | loss 1.48 | 1529.4 ms/step\n"
                     for m in range(10, 55)) + "[2024-08-24 03:56:05,561][train][INFO] - Training completed: 3763 steps\n"
    out = ("0: W0824 02:18:58.530000 600028 torch/distributed/run.py:793] \n"
           "0: W0824 02:18:58.530000 600028 torch/distributed/run.py:793] *****************************************\n"
           "1: W0824 02:19:17.206000 3327499 torch/distributed/run.py:793] \n"
           "1: W0824 02:19:17.206000 3327499 torch/distributed/run.py:793] *****************************************\n"
           "1: [W0824 {t} socket.cpp:487] [c10d] recvValue failed on SocketImpl(fd=14, addr=[nid000045]:46185,"
           " remote=[nid000044]:29500): Connection reset by peer\n")
    files = {"slurm-4532514.out": out.format(t="03:56:28.232613959"),
             "nid000044/torchelastic/4532514_ac6f0cfa/attempt_0/0/stdout.log": worker}
    assert incidents_of(tmp_path / "done", files, ruleset) == []
    # before the workers said so, the reset is the run's
    files["slurm-4532514.out"] = out.format(t="03:41:28.232613959")
    files["nid000044/torchelastic/4532514_ac6f0cfa/attempt_0/0/stdout.log"] = worker.rsplit("[2024-08-24 03:56:05", 1)[0]
    assert incidents_of(tmp_path / "cut", files, ruleset) != []


def test_a_pod_log_fetched_with_a_byte_limit_is_no_stall(tmp_path, ruleset: RuleSet) -> None:
    # kubectl logs --limit-bytes cut the master pod's log at step 300 (mid-line); the workers
    # trained on to step 1000 and completed: no rank can fall 700 steps behind and live
    def pod(ranks: range, last: int, done: bool) -> str:
        lines = [f"[rank{r}]:2025-05-10 03:{(s * 6) // 60:02d}:{(s * 6) % 60:02d},000 INFO step {s * 10} | loss 1.2"
                 " | 600 ms/step" for s in range(1, last // 10 + 1) for r in ranks]
        if done:
            lines += [f"[rank{r}]:2025-05-10 03:10:02,000 INFO training finished: 1000 steps" for r in ranks]
        return "\n".join(lines) + ("\n" if done else " | grad_n")
    seen = incidents_of(tmp_path / "cut", {"pt-7b-master-0.log": pod(range(0, 4), 300, False),
                                           "pt-7b-worker-0.log": pod(range(4, 12), 1000, True)}, ruleset)
    assert seen == []
    # ranks that stop a step or two before the others do stall them
    late = "".join(f"[rank{r}]:2025-05-10 03:25:00,000 INFO waiting in all_reduce\n" for r in range(4, 12))
    seen = incidents_of(tmp_path / "stuck", {"pt-7b-master-0.log": pod(range(0, 4), 980, False) + "\n",
                                             "pt-7b-worker-0.log": pod(range(4, 12), 1000, False) + "\n" + late}, ruleset)
    assert seen and seen[0].cause is Cause.HANG and any("ranks 0, 1, 2, 3 stopped first" in e for e in seen[0].evidence)


def test_a_second_nodes_clock_read_from_structured_step_records(tmp_path, ruleset: RuleSet) -> None:
    # a log platform's records of two nodes, each a structured logger's JSON step record; node-b's
    # clock is 200 s behind node-a's, so its ranks' errors at their peer's death are stamped
    # before the exception on node-a that caused them
    import json as _json

    def stamp(sec: float) -> str:
        sec = int(sec)
        return f"2025-11-02T07:{sec // 60:02d}:{sec % 60:02d}.000Z"

    def record(sec: float, host: str, text: str) -> str:
        return _json.dumps({"time": stamp(sec), "host": host, "log": text})

    def steps(ranks: range, host: str, skew: float) -> list[str]:
        return [record(300 + s * 3 - skew, host, _json.dumps({"ts": 1762067976.6 + s * 3, "level": "INFO", "rank": r,
                                                             "host": host, "step": 4000 + s, "loss": 3.7,
                                                             "step_time": 3.0}))
                for s in range(40) for r in ranks]

    a = [*steps(range(0, 4), "node-a", 0),
         record(425, "node-a", "[rank2]: Traceback (most recent call last):"),
         record(425, "node-a", "[rank2]: AssertionError: sequence length 4097 exceeds max_seq_len 4096")]
    b = [*steps(range(4, 8), "node-b", 200.0),
        record(426 - 200, "node-b", "node-b:884165:884267 [1] net.cpp:1404 NCCL WARN NET/OFI Request 0x7f8b68eeab1"
               " completed with error. RC: 103. Error: Software caused connection abort. Completed length: 0, Request:"
               " { dev: 0, size: 0, state: CREATED, direction: RECV }"),
        record(427 - 200, "node-b", "[rank5]:[E1102 07:03:47.403949009 ProcessGroupNCCL.cpp:1902] [PG ID 0 PG GUID"
               " 0(default_pg) Rank 5] Process group watchdog thread terminated with exception: NCCL error: remote"
               " process exited or there was a network error, NCCL version 2.21.5")]
    seen = incidents_of(tmp_path, {"export.jsonl": "\n".join(sorted(a + b)) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].rank == 2


def test_a_json_record_that_speaks_of_a_rank_is_read(tmp_path, ruleset: RuleSet) -> None:
    # a structured logger's record whose text says "rank 3": its "rank" field names the line's
    # rank (this once raised StopIteration in the prefix reader)
    import json as _json

    lines = [_json.dumps({"time": f"2025-03-01T10:00:{s:02d}Z", "log": _json.dumps(
        {"rank": 3, "step": s, "event": f"rank 3 step {s}", "loss": 1.2, "step_time": 0.5})}) for s in range(1, 30)]
    lines.append(_json.dumps({"time": "2025-03-01T10:00:31Z", "log": "[rank3]: RuntimeError: CUDA error: an illegal"
                                                                     " memory access was encountered"}))
    seen = incidents_of(tmp_path, {"rank3.jsonl": "\n".join(lines) + "\n"}, ruleset)
    assert seen and seen[0].cause is Cause.ILLEGAL_MEMORY_ACCESS and seen[0].rank == 3


def test_logrotates_copies_of_one_launch_cut_during_a_hang_are_no_attempts(tmp_path, ruleset: RuleSet) -> None:
    # logrotate cut rank 4's output while it hung: the newer file holds only the watchdog's lines,
    # no launch's start: one launch, its hang the run's
    older = _BANNER.format(t="23:36:19") + _steps(3, 23, 300)
    newest = ("[rank4]:[E1103 23:45:19.118431882 ProcessGroupNCCL.cpp:632] [Rank 4] Watchdog caught collective operation"
              " timeout: WorkNCCL(SeqNum=4211, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for"
              " 600011 milliseconds before timing out.\n")
    seen = incidents_of(tmp_path, {"logs/train.log.1": older, "logs/train.log": newest}, ruleset)
    assert seen and seen[0].cause is Cause.HANG


def test_of_two_nodes_a_completion_error_from_the_other_is_its_ranks_death(ruleset: RuleSet) -> None:
    # rank 8 on hgx011 raises a ValueError; rank 2 on hgx009 then sees a completion error from an
    # address that is not its own: in a job of two nodes, hgx011's (torchrun --log-dir files of
    # bench/blind34's node bundles)
    report = replay_path(DATA / "two_nodes_peer", ruleset)
    first = report.incidents[0]
    assert first.cause is Cause.PYTHON_EXCEPTION and first.initiator.rank == 8 and first.initiator.node == "hgx011"
    assert all(i.cause is not Cause.NETWORK for i in report.incidents)
