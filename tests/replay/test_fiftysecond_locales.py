"""The fifty-second session's runs: machines that speak another language (the shell's words for
a crash or a kill, dates and months in the local wording), logs saved in a Windows code page
(GBK, Shift-JIS, Windows-1252, Windows-1251, EUC-KR) rather than UTF-8, and the operator's
attachments around a job: Slurm's accounting with empty columns, ibstat's snapshot of a spare
port, nccl-tests' dated output, a monitor's segfault in the kernel log of a job that went on."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.sources.runs import _rank_from_name
from detector.sources.timestamps import parse_timestamp
from detector.support.compressed import legacy_encoding, open_log
from detector.types import Cause
from tests.support.replaying import causes_of, incidents_of

_STEPS = "".join(f"step {k} loss 1.{k}\n" for k in range(1, 6))


@pytest.mark.parametrize("said", [
    "段错误 (核心已转储)", "段错误（核心已转储）", "总线错误 (核心已转储)", "Speicherzugriffsfehler (Speicherabzug geschrieben)",
    "Erreur de segmentation (core dumped)", "Ошибка сегментирования (стек памяти сброшен на диск)",
    "Violación de segmento (`core' generado)", "セグメンテーション違反です (コアダンプ)",
    "Falha de segmentação (imagem do núcleo gravada)"])
def test_the_shells_crash_in_another_language_is_a_crash(tmp_path: Path, ruleset: RuleSet, said: str) -> None:
    line = f"/var/spool/slurmd/job123/slurm_script: line 12: 44211 {said}     python train.py\n"
    assert causes_of(tmp_path, {"slurm-123.out": _STEPS + line}, ruleset)[:1] == [Cause.CRASH_SIGNAL]
    # alone on its line, as an interactive shell prints it
    assert causes_of(tmp_path / "alone", {"console.log": _STEPS + said + "\n"}, ruleset)[:1] == [Cause.CRASH_SIGNAL]


@pytest.mark.parametrize("said", ["已杀死", "Getötet", "Processus arrêté", "Убито", "強制終了"])
def test_the_shells_kill_in_another_language_is_the_oom_killers(tmp_path: Path, ruleset: RuleSet, said: str) -> None:
    line = f"/var/spool/slurmd/job123/slurm_script: 第 12 行： 44211 {said}               python train.py\n"
    assert causes_of(tmp_path, {"slurm-123.out": _STEPS + line}, ruleset)[:1] == [Cause.HOST_OOM_KILL]
    # job control's word of a background helper the user ended is no job's death, in any language
    helper = f"[1]+  {said}                    watch -n 5 nvidia-smi > /dev/null\n"
    assert causes_of(tmp_path / "helper", {"console.log": _STEPS + helper}, ruleset) == []


def test_a_sentence_that_names_the_crash_is_no_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    assert causes_of(tmp_path, {"notes.txt": "段错误处理函数已注册\n已杀死服务器进程: 4242\n"}, ruleset) == []


_SUMMARY = """\
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-04-27_05:21:01
  host      : gpu-node-01
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 211328)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""


@pytest.mark.parametrize("killed", ["Killed", "已杀死"])
def test_a_kill_after_torchruns_summary_is_the_scripts_cleanup(tmp_path: Path, ruleset: RuleSet, killed: str) -> None:
    cleanup = f"bench.sh: line 219: 210777 {killed}               python gpu_monitor.py --output gpu.csv\n"
    causes = causes_of(tmp_path, {"stdout.log": _STEPS + _SUMMARY + cleanup}, ruleset)
    assert Cause.HOST_OOM_KILL not in causes, causes
    # before the summary, the shell's word is the job's own death
    assert causes_of(tmp_path / "before", {"stdout.log": _STEPS + cleanup}, ruleset)[:1] == [Cause.HOST_OOM_KILL]


_SEGV = "/var/spool/slurmd/job1/slurm_script: 第 12 行： 4567 段错误               (核心已转储) python train.py\n"


@pytest.mark.parametrize("codec", ["gbk", "gb18030"])
def test_a_log_in_chinese_windows_code_page_is_read(tmp_path: Path, ruleset: RuleSet, codec: str) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "slurm-1.out").write_bytes(("训练开始\r\n" + _STEPS + _SEGV).encode(codec))
    report = replay_path(run, ruleset)
    assert [i.cause for i in report.incidents][:1] == [Cause.CRASH_SIGNAL]
    assert any("GBK" in w and "converted to UTF-8" in w for w in report.warnings), report.warnings


def test_a_small_log_in_shift_jis_is_read_not_called_binary(tmp_path: Path, ruleset: RuleSet) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "train.log").write_bytes("学習を開始します\nステップ 100\nセグメンテーション違反です (コアダンプ)\n".encode("cp932"))
    report = replay_path(run, ruleset)
    assert [i.cause for i in report.incidents][:1] == [Cause.CRASH_SIGNAL]
    assert not any("binary" in w for w in report.warnings), report.warnings


@pytest.mark.parametrize(("text", "codec", "expected"), [
    ("训练完成，只是日志里有这些报错：段错误\n", "gbk", "gb18030"),
    ("学習を開始します。エラーが出ました\n", "cp932", "cp932"),
    ("세그멘테이션 오류가 발생했습니다 학습 중단\n", "cp949", "cp949"),
    ("Ошибка сегментирования (стек памяти сброшен на диск)\nУбито\n", "cp1251", "cp1251"),
    ("Zürich José Getötet straße café\n", "cp1252", "cp1252"),
])
def test_the_code_page_is_told_from_the_bytes(text: str, codec: str, expected: str) -> None:
    assert legacy_encoding(text.encode(codec)) == expected


def test_utf8_ascii_binary_and_damaged_utf8_stay_as_they_are() -> None:
    assert legacy_encoding(b"plain ascii log\n") is None
    assert legacy_encoding("日本語のログ　テスト\n".encode() * 5) is None
    assert legacy_encoding("日本語のログ　テスト\n".encode() * 5 + b"\xff\xfe broken\n") is None
    assert legacy_encoding(bytes(range(256)) * 40) is None
    # (one accented letter and a stray pair of bytes: too little to tell)
    assert legacy_encoding("2026-11-30 02:00:00,000 caf\xe9 ok\n".encode("latin-1") + b"\xff\xfe\n") is None


@pytest.mark.parametrize(("line", "expected"), [
    ("9月 20 21:34:49 dgx19 kernel: python[4654]: segfault at 0", datetime(2025, 9, 20, 21, 34, 49, tzinfo=UTC)),
    ("2025年05月18日 22:50:22 - INFO - step 100", datetime(2025, 5, 18, 22, 50, 22, tzinfo=UTC)),
    ("2025年 05月 18日 星期日 18:30:46 CST", datetime(2025, 5, 18, 18, 30, 46, tzinfo=UTC)),
    ("[mer. févr. 12 11:02:09 2025] python[4062]: segfault", datetime(2025, 2, 12, 11, 2, 9, tzinfo=UTC)),
    ("[Вс июл  6 06:23:56 2025] python[5140]: segfault", datetime(2025, 7, 6, 6, 23, 56, tzinfo=UTC)),
    ("juil. 12 11:02:09 gpu07 kernel: NVRM: Xid", datetime(2025, 7, 12, 11, 2, 9, tzinfo=UTC)),
    ("июл 06 06:23:56 gpu07 kernel: NVRM: Xid", datetime(2025, 7, 6, 6, 23, 56, tzinfo=UTC)),
    ("Okt 01 06:24:52 rechner03 kernel: python", datetime(2025, 10, 1, 6, 24, 52, tzinfo=UTC)),
])
def test_local_dates_and_months_are_read(line: str, expected: datetime) -> None:
    stamp = parse_timestamp(line, year=2025)
    assert stamp is not None and stamp.time == expected, stamp


def test_a_month_word_and_a_time_alone_are_no_stamp() -> None:
    assert parse_timestamp("juin 12 11:02:09 and then", year=2025) is None
    assert parse_timestamp("3月 5 12:00:00", year=2025) is None


_SACCT = """\
JobID           JobName  Partition    Account  AllocCPUS      State ExitCode
------------ ---------- ---------- ---------- ---------- ---------- --------
2455995           train       h100        lab        256  COMPLETED      0:0
2455995.batch      batch                                8  COMPLETED      0:0
2455995.0        python                              256  COMPLETED      0:0
"""


def test_slurm_accounting_with_empty_columns_says_the_job_completed(tmp_path: Path, ruleset: RuleSet) -> None:
    # (a process crashed as the job's output ended: the job's own, but for Slurm's word that every
    # step of it completed)
    kernel = "Dec 01 08:59:30 gpu11 kernel: python[1892]: segfault at 0 ip 00007ff343f92d sp 00007ffd3f6127bd error 4 in libnvidia-ml.so.535[7f32ec755d+1a0000]\n"
    out = "".join(f"0: 2026-12-01 0{7 + k // 60}:{k % 60:02d}:00,000 - INFO - step {k * 100} loss 2.0\n" for k in range(120))
    files = {"slurm-2455995.out": out, "journalctl-k_gpu11.log": kernel}
    assert causes_of(tmp_path / "crash", files, ruleset)[:1] == [Cause.CRASH_SIGNAL]
    assert causes_of(tmp_path / "done", dict(files, **{"sacct_2455995.txt": _SACCT}), ruleset) == []


def _ibstat(state: str, physical: str) -> str:
    return ("$ ibstat\nCA 'mlx5_1'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tPort 1:\n"
            f"\t\tState: {state}\n\t\tPhysical state: {physical}\n\t\tRate: 10\n\t\tLink layer: InfiniBand\n")


_AGENT_OK = ("I1204 11:01:42.671821 {pid} torch/distributed/elastic/agent/server/api.py:864] [default] worker group"
             " successfully finished. Waiting 300 seconds for other agents to finish.\n")


def test_a_spare_port_down_in_a_snapshot_is_no_failure_of_a_job_that_ended_well(tmp_path: Path, ruleset: RuleSet) -> None:
    files = {f"logs/train-{node}.log": _STEPS + _AGENT_OK.format(pid=6300 + i)
             for i, node in enumerate(("r05u03-gpu", "r05u06-gpu"))}
    files["fabric/r05u06-gpu/ibstat.txt"] = _ibstat("Down", "Disabled")
    assert causes_of(tmp_path / "ok", files, ruleset) == []
    # one node's agent never said so: the port may be why
    failed = dict(files, **{"logs/train-r05u06-gpu.log": _STEPS})
    assert causes_of(tmp_path / "failed", failed, ruleset)[:1] == [Cause.NETWORK]


def test_a_port_down_in_a_snapshot_is_no_initiator_over_the_jobs_own_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    rank5 = ("[rank5]: Traceback (most recent call last):\n[rank5]:   File \"train.py\", line 88, in <module>\n"
             "[rank5]: TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'\n")
    files = {"logs/train-r05u02-gpu.log": _STEPS + rank5, "fabric/r05u02-gpu/ibstat.txt": _ibstat("Down", "Polling")}
    seen = incidents_of(tmp_path, files, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and not seen[0].drain, seen


def test_a_dated_file_name_holds_no_rank() -> None:
    assert _rank_from_name("all_reduce_perf-20230320-2024.log") is None
    assert _rank_from_name("train-20250101-093015.out") is None
    assert _rank_from_name("slurm-123456-3.out") == 3
    assert _rank_from_name("job.123456.7.log") == 7


def test_a_monitors_segfault_while_the_job_went_on_quietly_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    out = "".join(f"2026-12-01 0{7 + k // 60}:{k % 60:02d}:00,000 - INFO - [rank0] step {k * 100} loss 2.0\n" for k in range(150))
    kernel = ("Dec 01 07:10:52 gpu11 kernel: python[1892]: segfault at 0 ip 00007ff343f92d sp 00007ffd3f6127bd"
              " error 4 in libnvidia-ml.so.535[7f32ec755d+1a0000]\n")
    assert causes_of(tmp_path / "quiet", {"train.log": out, "kern.log": kernel}, ruleset) == []
    # where the job's output stops with it, the crash is the job's
    stopped = "".join(out.splitlines(keepends=True)[:11])
    assert causes_of(tmp_path / "stopped", {"train.log": stopped, "kern.log": kernel}, ruleset)[:1] == [Cause.CRASH_SIGNAL]


def test_a_crash_while_only_an_evaluators_polling_went_on_is_the_jobs(tmp_path: Path, ruleset: RuleSet) -> None:
    train = "".join(f"2026-12-01 07:{k // 6:02d}:{k % 6 * 10:02d},000 - INFO - train - epoch 3 step {k * 50} loss 2.0\n"
                    for k in range(64))
    evaluator = "".join(f"2026-12-01 07:{k:02d}:05,000 - INFO - evaluator - waiting for a checkpoint newer than step 3000\n"
                        for k in range(30))
    kernel = ("Dec 01 07:10:37 gpu11 kernel: python[1892]: segfault at 0 ip 00007f3a43f92d2c sp 00007ffd3f6127b0"
              " error 4 in libc10_cuda.so[7f3a43f00000+80000]\n")
    files = {"train.log": train, "eval.log": evaluator, "kern.log": kernel}
    assert causes_of(tmp_path, files, ruleset)[:1] == [Cause.CRASH_SIGNAL]


def test_training_said_complete_in_chinese_is_no_stall(tmp_path: Path, ruleset: RuleSet) -> None:
    head = "2026年12月11日 10:54:12 - INFO - [rank {r}] initialized process group (backend=nccl, local_rank={r}, host=node39)\n"
    rank0 = head.format(r=0) + "".join(
        f"2026年12月11日 {11 + k // 20}:{k % 20 * 3:02d}:00 - INFO - step {k * 100}/6500 loss 5.4\n" for k in range(66))
    done = rank0 + "2026-12-11 15:17:04,194 - INFO - 训练完成. steps=6500\n"
    others = {f"logs/rank{r}.log": head.format(r=r) + "".join(f"[rank{r}] step {k * 500}: iter 2.2s\n" for k in range(14))
              for r in (1, 2, 3)}
    assert causes_of(tmp_path / "done", dict(others, **{"logs/rank0.log": done}), ruleset) == []


def test_a_banner_in_gbk_before_utf8_output_keeps_the_utf8(tmp_path: Path, ruleset: RuleSet) -> None:
    banner = "开始训练 数据路径 /data/corpus\r\n".encode("gbk")
    steps = "".join(f"第 {k} 步 loss=1.{k}\n" for k in range(1, 40)).encode()
    report_dir = tmp_path / "run"
    report_dir.mkdir()
    (report_dir / "train.log").write_bytes(banner + steps + "训练完成. steps=39\n".encode() + _SEGV.encode())
    report = replay_path(report_dir, ruleset)
    assert [i.cause for i in report.incidents][:1] == [Cause.CRASH_SIGNAL]
    text = (report_dir / "train.log").read_bytes()
    fh, _st, _note = open_log(report_dir / "train.log", False)
    with fh:
        converted = fh.read().decode("utf-8", "replace")
    assert "第 39 步" in converted and "训练完成" in converted, converted[:200]
    assert len(converted.splitlines()) == len(text.splitlines())
    # a long banner in GBK fills the head the code page is told from: converted, the UTF-8 kept
    (report_dir / "train.log").write_bytes(banner * 400 + steps + _SEGV.encode())
    fh, _st, note = open_log(report_dir / "train.log", False)
    with fh:
        converted = fh.read().decode("utf-8")
    assert note and "GBK" in note and "开始训练" in converted and "第 39 步" in converted and "段错误" in converted


def test_an_html_escaped_page_saved_in_a_code_page_is_unescaped(tmp_path: Path, ruleset: RuleSet) -> None:
    page = ("Gerät für Training:\n"
            "gpu-node-03:2211:2290 [1] include/alloc.h:103 NCCL WARN Cuda failure &#39;out of memory&#39;\n"
            "[rank1]: torch.distributed.DistBackendError: NCCL error in: &quot;ProcessGroupNCCL.cpp&quot;:1970, "
            "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
            "[rank1]: ncclUnhandledCudaError: Call to CUDA function failed.\n"
            "[rank1]: Last error:\n[rank1]: Cuda failure &#39;out of memory&#39;\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / "page_source.txt").write_bytes(page.encode("cp1252"))
    report = replay_path(run, ruleset)
    assert [i.cause for i in report.incidents][:1] == [Cause.CUDA_OOM], report.warnings


def test_a_western_code_page_is_not_taken_for_japanese() -> None:
    text = "Läufe auf dem Gerät: opération terminée, Usuário Hélène\n" * 3
    assert legacy_encoding(text.encode("cp1252")) == "cp1252"


def test_a_scheduler_output_named_for_a_date_like_job_keeps_its_task() -> None:
    assert _rank_from_name("slurm-20240117.0002.out") == 2
    assert _rank_from_name("job-20231105-1203.out") == 1203


def test_tensorflows_aborted_collectives_are_no_exception_of_the_worker(tmp_path: Path, ruleset: RuleSet) -> None:
    worker0 = ("Traceback (most recent call last):\n  File \"/app/train.py\", line 304, in <module>\n    main()\n"
               "tensorflow.python.framework.errors_impl.UnavailableError: Graph execution error:\n\n"
               "Collective ops is aborted by: Task /job:worker/replica:0/task:1 heartbeat timeout. This indicates that the"
               " remote task has failed, got preempted, or crashed unexpectedly.\n")
    causes = causes_of(tmp_path, {"worker-0.log": _STEPS + worker0}, ruleset)
    assert Cause.PYTHON_EXCEPTION not in causes, causes


def test_mxnets_allocation_failure_is_out_of_memory(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("[18]<stderr>:Traceback (most recent call last):\n[18]<stderr>:  File \"train_imagenet.py\", line 312, in <module>\n"
            "[18]<stderr>:MXNetError: cudaMalloc retry failed: out of memory\n")
    assert causes_of(tmp_path, {"horovod_mxnet.log": _STEPS + text}, ruleset)[:1] == [Cause.CUDA_OOM]


def test_an_infiniband_message_truncated_is_a_collective_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("dgx47:25456:25497 [4] transport/net_ib.cc:1121 NCCL WARN NET/IB : Message truncated : received 4194304 bytes"
            " instead of 4190208\nOSError: (External) NCCL error(5), invalid usage.\n")
    assert causes_of(tmp_path, {"log/workerlog.4": _STEPS + text}, ruleset)[:1] == [Cause.COLLECTIVE_MISMATCH]


@pytest.mark.parametrize(("subject", "cause"), [
    ("Slurm Job_id=1311943 Name=ddp Failed, Run time 2-00:00:14, TIMEOUT", Cause.PREEMPTION),
    ("Slurm Job_id=3167716 Name=vit_l Failed, Run time 2-00:00:14, PREEMPTED, ExitCode 0", Cause.PREEMPTION),
    ("Slurm Job_id=5408520 Name=ddp_job Failed, Run time 20:48:13, OUT_OF_MEMORY", Cause.HOST_OOM_KILL),
    ("Slurm Job_id=2314111 Name=ft Failed, Run time 17:03:09, NODE_FAIL", Cause.UNKNOWN),
])
def test_slurms_mail_about_the_job_says_how_it_ended(tmp_path: Path, ruleset: RuleSet, subject: str, cause: Cause) -> None:
    assert causes_of(tmp_path, {"paste.txt": f"got this email, anything I can do?\n{subject}\n"}, ruleset)[:1] == [cause]
    done = "Slurm Job_id=9675766 Name=UnZip Ended, Run time 02:44:34, COMPLETED, ExitCode 0\n"
    assert causes_of(tmp_path / "done", {"paste.txt": done}, ruleset) == []


def test_a_socket_reset_after_the_communicator_was_destroyed_is_the_jobs_end(tmp_path: Path, ruleset: RuleSet) -> None:
    head = "ip-10-27-20-226:270335:270477 [7] "
    destroy = f"{head}NCCL INFO comm 0x9076324ee7 rank 15 nranks 16 cudaDev 7 busId 3b000 - Destroy COMPLETE\n"
    reset = (f"{head}misc/socket.cc:50 NCCL WARN socketProgressOpt: Call to recv from 10.3.11.20<57344> failed : Connection reset by peer\n"
             f"{head}NCCL INFO misc/socket.cc:585 -> 6\n{head}NCCL INFO bootstrap.cc:77 -> 6\n")
    assert causes_of(tmp_path / "end", {"log.txt": _STEPS + destroy + reset}, ruleset) == []
    assert causes_of(tmp_path / "midrun", {"log.txt": _STEPS + reset}, ruleset)[:1] == [Cause.NETWORK]


@pytest.mark.parametrize("signal", ["Bus error", "Illegal instruction", "Segmentation fault"])
def test_the_shells_crash_padded_to_its_column_is_a_crash(tmp_path: Path, ruleset: RuleSet, signal: str) -> None:
    # (bash pads the signal's name to a column before "(core dumped)": 15 spaces after "Bus error")
    line = f"train_cmd.sh: line 34:   894 {signal:<24}(core dumped) python train.py\n"
    assert causes_of(tmp_path, {"console.log": "Loading extension module fused_adam...\n" + line}, ruleset)[:1] == [Cause.CRASH_SIGNAL]
