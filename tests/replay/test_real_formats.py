"""Formats met in real pasted logs (replay_logs/real, development cases): line prefixes and rank /
host hints, timestamps and line headers, run layouts, and the generic rule families. Every line
here is copied from a development case (or is the program's documented format of it)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from detector.pipeline.scan import scan_file
from detector.rules.engine import RuleSet
from detector.sources.prefixes import PrefixStyle, detect_style, strip_prefix
from detector.sources.runs import FileKind, LogFile, discover, looks_like_host
from detector.sources.timestamps import parse_timestamp
from detector.types import Role, StreamKind

# ---- prefixes and rank / host hints --------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "message", "rank", "local", "host"),
    [
        # Open MPI --tag-output, also after a collector's timestamp (kept in the message)
        ("[1,1]<stderr>:2019-08-26 18:41:15.943905: E tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed",
         "2019-08-26 18:41:15.943905: E tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed", 1, None, None),
        ("2019-06-02T16:13:44.884Z: [1,12]<stdout>:container-e275:815:864 [0] transport/net_ib.cu:80 NCCL WARN x",
         "2019-06-02T16:13:44.884Z: container-e275:815:864 [0] transport/net_ib.cu:80 NCCL WARN x", 12, None, None),
        # horovodrun
        ("[0]<stderr>:Missing ranks:", "Missing ranks:", 0, None, None),
        # torchrun prefix after a wall-clock stamp
        ("2024-11-20 14:37:16 [rank3]: torch.OutOfMemoryError: CUDA out of memory.",
         "2024-11-20 14:37:16 torch.OutOfMemoryError: CUDA out of memory.", 3, None, None),
        # NeMo-Run task label, torchrun --tee and [rankN]:
        ("i.pretrain/0 [default2]:[rank2]: RuntimeError: Rank 2, node dcfai-xe9680-01, device 2",
         "RuntimeError: Rank 2, node dcfai-xe9680-01, device 2", 2, 2, None),
        # Ray actor (ANSI colour codes left as text by a paste) and Lightning's [rank: N]
        ("[2m[36m(RayTrainWorker pid=1942, ip=100.97.252.234)[0m 17-Jan-23 17:21:19 [Worker:0] [INFO] Final Sync",
         "17-Jan-23 17:21:19 [Worker:0] [INFO] Final Sync", None, None, "100.97.252.234"),
        ("(_train_tune pid=22946) [rank: 1] Child process with PID 23026 terminated with code 1.",
         "Child process with PID 23026 terminated with code 1.", 1, None, None),
        ("ray/0 (CommandActor pid=494406) INFO:torch.distributed.elastic.agent.server.api:[] Starting worker group",
         "INFO:torch.distributed.elastic.agent.server.api:[] Starting worker group", None, None, None),
        # [host:local_rank]:
        ("[gpu187:2]: Traceback (most recent call last):", "Traceback (most recent call last):", None, 2, "gpu187"),
        # pdsh / DeepSpeed multi-node host label (an IPv4 address)
        ("10.10.23.10: so-ucloud-10-10-23-10:1307367:1307586 [0] transport/net_ib.cc:1038 NCCL WARN x",
         "so-ucloud-10-10-23-10:1307367:1307586 [0] transport/net_ib.cc:1038 NCCL WARN x", None, None, "10.10.23.10"),
        # a talosctl kernel line is not a pdsh label (its host is the kernel header's)
        ("192.168.11.119: kern: warning: [2026-04-22T21:25:20.458998481Z]: NVRM: Xid",
         "192.168.11.119: kern: warning: [2026-04-22T21:25:20.458998481Z]: NVRM: Xid", None, None, None),
    ],
)
def test_prefix_forms(line: str, message: str, rank: int | None, local: int | None, host: str | None) -> None:
    p = strip_prefix(line)
    assert (p.message, p.rank, p.local_rank, p.host) == (message, rank, local, host)


@pytest.mark.parametrize(
    ("line", "rank", "local"),
    [
        # torch < 2.2: ProcessGroupNCCL's [Rank N] without a [rankN]: prefix (also glued to tqdm)
        ("[E ProcessGroupNCCL.cpp:821] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=512012, OpType=ALLTOALL_BASE, Timeout(ms)=1800000)", 2, None),
        ("Epoch 0:   6%| 32040/500150 [6:28:43<94:39:17,  1.37it/s, loss=2.6][E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout", 0, None),
        ("[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered", 1, None),
        ("[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 1] Heartbeat monitor timed out! Process will be terminated after dumping debug info.", 1, None),
        ("[E1130 17:40:34.227531 1220 ProcessGroupNCCL.cpp:1663] [PG ID 0 PG GUID 0(default_pg) Rank 3] failure detected by watchdog", 3, None),
        # a subgroup's rank is not the global rank
        ("[E ProcessGroupNCCL.cpp:1316] [PG 3 Rank 1] Heartbeat monitor timed out!", None, None),
        # DeepSpeed / Megatron rank-tagged line
        ("[Rank 0] (after 1 iterations) memory (MB) | allocated: 18548.8388671875", 0, None),
        # a launcher's line about one worker names its local rank
        ("[2023-07-10 04:26:35,999] [ERROR] [launch.py:324:sigkill_handler] ['/venv/bin/python3.10', '-u', 'trainCLM.py', '--local_rank=1', '--deepspeed'] exits with return code = -11", None, 1),
        ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 178) of binary: /root/miniconda3/envs/MGSV_env/bin/python", None, 0),
        ("  rank      : 0 (local_rank: 0)", None, 0),
        # not hints
        ("[2024-09-11 17:52:18,030] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step.", None, None),
        ("Parameters which did not receive grad for rank 3: mask_encoder.sensory_update.transform.bias", None, None),
    ],
)
def test_rank_hints(line: str, rank: int | None, local: int | None) -> None:
    p = strip_prefix(line)
    assert (p.rank, p.local_rank) == (rank, local)
    assert p.message == line  # hints are read, not removed
    assert p.hinted == (rank is not None or local is not None)


def test_host_label_style_only_when_the_file_uses_it() -> None:
    pdsh = [f"node{i % 2:02d}: step {i} loss 2.{i}" for i in range(10)]
    assert detect_style(pdsh) is PrefixStyle.HOST_LABEL
    p = strip_prefix("node01: Traceback (most recent call last):", PrefixStyle.HOST_LABEL)
    assert (p.message, p.host) == ("Traceback (most recent call last):", "node01")
    assert detect_style(["WARNING: x", "Epoch: 1", "Epoch: 2", "Epoch: 3"]) is not PrefixStyle.HOST_LABEL
    assert strip_prefix("Epoch1: not a host", PrefixStyle.BRACKETS).host is None


# ---- timestamps and host-bearing line headers ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "time", "host"),
    [
        # a collector's stamp with a spaced offset, then the program's, then NCCL's header
        ("2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1313 [0] transport/net_ib.cc:139 NCCL WARN x",
         datetime(2025, 11, 9, 15, 39, 31, 43000, tzinfo=timezone(timedelta(hours=8))), "h100-28"),
        ("2019-06-02T16:13:44.884Z: container-e275-1553839402050-12124-01-000057:815:864 [0] transport/net_ib.cu:80 NCCL WARN",
         datetime(2019, 6, 2, 16, 13, 44, 884000, tzinfo=UTC), "container-e275-1553839402050-12124-01-000057"),
        # talosctl dmesg
        ("192.168.11.119: kern: warning: [2026-04-22T21:25:20.505406921Z]: NVRM: Xid (PCI:0000:48:00): 62, 00002740",
         datetime(2026, 4, 22, 21, 25, 20, 505406, tzinfo=UTC), "192.168.11.119"),
        # headers without a stamp: NCCL, UCX, Open MPI
        ("node23:12098:12141 [2] transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid argument'", None, "node23"),
        ("[cf0b62962198:378934:0:382579] Caught signal 7 (Bus error: nonexistent physical address)", None, "cf0b62962198"),
        ("    [h06c0901:07661] Signal: Segmentation fault (11)", None, "h06c0901"),
    ],
)
def test_stamps_and_headers(text: str, time: datetime | None, host: str) -> None:
    stamp = parse_timestamp(text, year=2026)
    assert stamp is not None and stamp.time == time and stamp.host == host


@pytest.mark.parametrize("text", ["[train.py:45] loss 1.0", "[launch.py:318:sigkill_handler] x", "[12:34] x",
                                  "localhost:1:2 [0] NCCL INFO x", "[E ProcessGroupNCCL.cpp:458] [Rank 0] x"])
def test_headers_that_name_no_host(text: str) -> None:
    stamp = parse_timestamp(text, year=2026)
    assert stamp is None or stamp.host is None


# ---- run layout: node names from folders and from the logs --------------------------------------


@pytest.mark.parametrize("name", ["node07", "gpu-a01", "hgx-017", "dgx-a07", "trn-node-12", "10.0.0.7",
                                  "marvel.amem.cs.cmu.edu", "cf0b62962198", "SH-IDC1-10-140-24-95"])
def test_host_like_folders(name: str) -> None:
    assert looks_like_host(name)


@pytest.mark.parametrize("name", ["logs", "torchrun-logs", "train_logs", "attempt_0", "job_1234", "job-81234",
                                  "rank3", "rank_3", "worker-3", "3", "2026-11-30", "run_20261130_1200", "exp10",
                                  "81234_7tq3vz1m", "scenario", "myproject", "A-nccl-230-ib-local-catastrophic",
                                  "B-vrt-47-sighup-launch"])
def test_generic_folders(name: str) -> None:
    assert not looks_like_host(name)


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content)


def test_nodes_from_folders_and_from_the_logs(tmp_path: Path) -> None:
    _write(tmp_path, {
        # a host folder whose NCCL lines agree
        "node07/rank_3.log": "node07:2231:2231 [3] NCCL INFO Bootstrap : Using eth0:10.0.0.7<0>\n",
        # generic folders never name a node
        "torchrun-logs/attempt_0/rank_1.log": "x\n",
        # a host-looking folder contradicted by its file's own hosts: the logs win
        "gpu-9/console.log": "node01:1:1 [0] NCCL INFO a\nnode02:2:2 [0] NCCL INFO b\n",
        # a shell prompt names the host of a pasted dmesg
        "dmesg.txt": "root@node4:~# dmesg -T |grep NVRM\n[Wed Jul 31 23:14:18 2024] NVRM: Xid (PCI:0000:00:05): 43, pid=1045242\n",
        "nvidia-smi.txt": "zeyer@cn-234 ~ % nvidia-smi\nUnable to determine the device handle for GPU0000:03:00.0: Unknown Error\n",
        # one host throughout a flat file
        "train.log": "ip-172-16-1-166:32493:32644 [0] NCCL INFO P2P is disabled\nTypeError: x\n",
        # several hosts: no node for the file
        "combined.log": "node01:1:1 [0] NCCL INFO a\nnode02:2:2 [0] NCCL INFO b\n",
    })
    found, _ = discover(tmp_path)
    nodes = {f.display: f.node for f in found}
    assert nodes["node07/rank_3.log"] == "node07"
    assert nodes["torchrun-logs/attempt_0/rank_1.log"] is None
    assert nodes["gpu-9/console.log"] is None
    assert nodes["dmesg.txt"] == "node4"
    assert nodes["nvidia-smi.txt"] == "cn-234"
    assert nodes["train.log"] == "ip-172-16-1-166"
    assert nodes["combined.log"] is None


# ---- rule families -------------------------------------------------------------------------------


def _ids(ruleset: RuleSet, line: str, kind: StreamKind = StreamKind.RANK_LOG) -> dict[str, dict[str, str]]:
    return {m.rule.id: dict(m.fields) for m in ruleset.match(strip_prefix(line).message, kind)}


@pytest.mark.parametrize(
    ("line", "rule", "fields"),
    [
        # crash signals caught by UCX / Open MPI handlers, the shell's verdict
        ("[cf0b62962198:378934:0:382579] Caught signal 7 (Bus error: nonexistent physical address)",
         "generic.caught_signal", {"host": "cf0b62962198", "signal": "Bus error"}),
        ("Caught signal 7 (Bus error: nonexistent physical address)", "generic.caught_signal", {"signo": "7"}),
        ("[gpu-node-3:4242 :0:4250] Caught signal 11 (Segmentation fault: address not mapped to object at address (nil))",
         "generic.caught_signal", {"host": "gpu-node-3", "pid": "4242"}),
        ("7fac380de[nmyjs836:19833:0] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x56209d44a830)",
         "generic.caught_signal", {"host": "nmyjs836", "pid": "19833"}),
        ("    [h06c0901:07661] Signal: Segmentation fault (11)", "generic.mpi_signal", {"host": "h06c0901", "signo": "11"}),
        ("[1,0]<stderr>:[1a62e574072d:00334] Signal: Bus error (7)", "generic.mpi_signal", {"signal": "Bus error"}),
        ("Killed", "generic.shell_killed", {}),
        ("RuntimeError: Rank 2, node dcfai-xe9680-01, device 2, iteration -1: Unexpected result nan (message='found NaN in local grad norm for bucket #0')",
         "generic.nonfinite_loss", {"rank": "2", "host": "dcfai-xe9680-01"}),
        ("AssertionError: Rank 11: found NaN in local grad norm in backward pass before data-parallel communication collective. Device: 3",
         "generic.nonfinite_loss", {"rank": "11"}),
        ("FloatingPointError: Loss became infinite or NaN at iteration=1523!", "generic.nonfinite_loss", {"exc_type": "FloatingPointError"}),
        ("ValueError: host not found: Name or service not known", "generic.host_unresolvable", {}),
        ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rankroot/anaconda3/envs/faster/bin/python",
         "launcher.elastic_exitcode_unplaced", {"exitcode": "-9"}),
        # launchers
        ("[2023-07-10 04:26:35,999] [ERROR] [launch.py:324:sigkill_handler] ['/venv/bin/python3.10', '-u', 'trainCLM.py', '--local_rank=1', '--deepspeed', 'ds.json'] exits with return code = -11",
         "launcher.deepspeed_exit", {"local_rank": "1", "exitcode": "-11"}),
        ("fdsui[2023-07-10 04:26:05,876] [INFO] [launch.py:318:sigkill_handler] Killing subprocess 94984",
         "launcher.deepspeed_killing_subprocess", {"pid": "94984"}),
        ("subprocess.CalledProcessError: Command '['/opt/tiger/conda/bin/python3', '-u', 'train_imagenet.py', '--local_rank=7', '--epochs', '180']' died with <Signals.SIGSEGV: 11>.",
         "launcher.legacy_launch_signal", {"local_rank": "7", "signal": "SIGSEGV"}),
        ("mpirun noticed that process rank 1 with PID 0 on node aaron-argo-1 exited on signal 6 (Aborted).",
         "launcher.mpirun_signal", {"task": "1", "host": "aaron-argo-1", "signal": "Aborted"}),
        ("(_train_tune pid=22946) [rank: 1] Child process with PID 23026 terminated with code 1. Forcefully terminating all other processes to avoid zombies",
         "launcher.lightning_child_failed", {"exitcode": "1"}),
        ("2023-01-17 17:21:35,472	WARNING worker.py:1829 -- A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker.",
         "launcher.ray_worker_died", {}),
        ("[0]<stderr>:[2020-12-29 16:50:57.724380: W /tmp/horovod/common/stall_inspector.cc:105] One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds.",
         "launcher.horovod_stall_timeout", {"seconds": "60"}),
        # torchrun agent and torch
        ("W0920 09:10:41.194000 84933 site-packages/torch/distributed/elastic/agent/server/api.py:719] Received 1 death signal, shutting down workers",
         "torch.elastic_received_sighup", {"signal": "1"}),
        ("W1130 12:13:49.388000 124326 torch/distributed/elastic/agent/server/api.py:723] Received 15 death signal, shutting down workers",
         "torch.elastic_received_signal", {"signal": "15"}),
        ("Parameter indices which did not receive grad for rank 3: 282 283 ", "torch.unused_parameters_rank", {"rank": "3"}),
        # NCCL
        ("2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1219 [0] transport/net_ib.cc:180 NCCL WARN NET/IB : mlx5_ib0:1 async fatal event on QP (0x7f69f01519a8): local access violation work queue error",
         "nccl.ib_async_event", {"hca": "mlx5_ib0", "fatal": "local access violation work queue error"}),
        ("n122-246-085:12251:12400 [5] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to fe80::966d:ae03:a2:8cf0%ib1<17943> failed : Software caused connection abort",
         "nccl.socket_connect_failed", {"reason": "Software caused connection abort"}),
        ("host:22337:22453 [6] proxy.cc:1097 NCCL WARN [Proxy Service 14] Failed to execute operation Connect from rank 14, retcode 2",
         "nccl.proxy_connect_failed", {"op": "Connect"}),
        ("init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39. You can use NCCL_DEBUG=INFO",
         "nccl.mismatched_collective", {"culprit_rank": "39"}),
        ("10.10.23.10: so-ucloud-10-10-23-10:1307367:1307586 [0] transport/net_ib.cc:1038 NCCL WARN NET/IB : req 0/1 tag 0 peer 10.10.23.6<58683> collective mismatch error, local size 496640 remote size 65536",
         "nccl.ib_size_mismatch", {"local_size": "496640", "remote_size": "65536"}),
        ("node23:12098:12141 [2] transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid argument'",
         "nccl.nvls_cuda_failure", {"cuda_error": "invalid argument"}),
        # schedulers
        ("slurmstepd: error: *** STEP 32233190.0 ON nid01934 CANCELLED AT 2020-07-03T02:59:56 DUE TO TIME LIMIT ***",
         "scheduler.slurm_time_limit", {"host": "nid01934"}),
        ("submitit WARNING (2022-08-12 02:06:11,453) - Caught signal SIGUSR2 on SERVER_NAME: this job is preempted.",
         "scheduler.submitit_preempted", {"signal": "SIGUSR2"}),
        ("(autoscaler +44m27s) Instance k-1a5e56fa0001 (node IP: 10.1.140.199) will be terminated soon (reason: kubernetes-pod-termination).",
         "scheduler.autoscaler_node_terminated", {"host": "10.1.140.199"}),
        # GPU health tools
        ("Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this GPU",
         "nvml.gpu_lost", {"reason": "GPU is lost"}),
        ("slurmstepd: error: NVML: Failed to get usage(15): GPU is lost", "nvml.gpu_lost", {"nvml_reason": "GPU is lost"}),
    ],
)
def test_rank_log_families(ruleset: RuleSet, line: str, rule: str, fields: dict[str, str]) -> None:
    got = _ids(ruleset, line)
    assert rule in got, f"{rule} did not match; matched: {sorted(got)}"
    assert fields.items() <= got[rule].items()


@pytest.mark.parametrize(
    ("line", "rule", "fields"),
    [
        ("kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149",
         "xid.after_nvlink_error", {"prev_xid": "149", "pci": "0000:dc:00"}),
        ("[373871.354096] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827",
         "xid.gpu_needs_reset", {"nv_err": "RESET_REQUIRED"}),
        ("[198542.853543] mlx5_core 0000:5e:00.0: device's health compromised - reached miss count",
         "system.nic_health_compromised", {"nic_pci": "0000:5e:00.0"}),
        ("[500967.571516] amdgpu 0000:dd:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
         "system.amdgpu_uncorrectable", {"pci": "0000:dd:00"}),
    ],
)
def test_kernel_families(ruleset: RuleSet, line: str, rule: str, fields: dict[str, str]) -> None:
    got = _ids(ruleset, line, StreamKind.KERNEL)
    assert rule in got, f"{rule} did not match; matched: {sorted(got)}"
    assert fields.items() <= got[rule].items()


@pytest.mark.parametrize(
    "line",
    [
        # benign chatter of healthy runs stays out of the evidence
        "ip-172-16-1-166:32493:32644 [0] NCCL INFO P2P is disabled between connected GPUs 2 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.",
        "cvlab189-System-Product-Name:1379562:1379562 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
        "[rank1]:[W326 09:37:44.752383442 ProcessGroupNCCL.cpp:1487] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources.",
        "[W reducer.cpp:1303] Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass.",
        "UserWarning: Grad strides do not match bucket view strides. This may indicate grad was not created according to the gradient layout contract",
        "[2024-09-11 17:52:18,030] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 4294967296, reducing to 2147483648",
        "dsw-27183-759b57b4d6-kz2vc:261724:370 [7] NCCL INFO Connected all trees",
        "2022-05-10 05:38:33 | INFO | torch.distributed.distributed_c10d | Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 (world_size=2, worker_count=3, timeout=0:30:00)",
        "(autoscaler +44m27s) Instance k-1a5e56fa0001 (node IP: 10.1.140.199) will be terminated soon (reason: idle).",
    ],
)
def test_benign_chatter_is_not_evidence(ruleset: RuleSet, line: str) -> None:
    bad = [m.rule.id for m in ruleset.match(strip_prefix(line).message, StreamKind.RANK_LOG)
           if m.rule.role is not Role.CONTEXT]
    assert bad == []


# ---- multi-line forms, read as replay reads them -------------------------------------------------


def _scan(tmp_path: Path, ruleset: RuleSet, text: str, name: str = "train.log",
          kind: FileKind = FileKind.RANK_LOG) -> list[tuple[int, str, dict[str, str], int | None, int | None, str | None]]:
    path = tmp_path / name
    path.write_text(text)
    scan = scan_file(LogFile(path, name, kind), ruleset, year=2026)
    return [(h.event.line, m.rule.id, dict(m.fields), h.event.rank, h.event.local_rank, h.event.node)
            for h in scan.hits for m in h.matches]


def test_deepspeed_exit_with_a_wrapped_command_line(tmp_path: Path, ruleset: RuleSet) -> None:
    hits = _scan(tmp_path, ruleset, (
        "[2023-11-13 16:59:54,760] [INFO] [launch.py:314:sigkill_handler] Killing subprocess 9439\n"
        "[2023-11-13 16:59:55,650] [ERROR] [launch.py:320:sigkill_handler] ['/opt/conda/bin/python', '-u', "
        "'train_mvtec.py', '--local_rank=1', '--model', 'openllama_peft', '--stage', '1', '--imagebind_ckpt_path', \n"
        "'../pretrained_ckpt/imagebind_ckpt/imagebind_huge.pth', '--vicuna_ckpt_path', '../pretrained_ckpt/vicuna_ckpt/7b_v0/'\n"
        "] exits with return code = -9\n"
    ))
    exit_hit = next(h for h in hits if h[1] == "launcher.deepspeed_exit_wrapped")
    assert exit_hit[2] == {"local_rank": "1", "exitcode": "-9"} and exit_hit[4] == 1


def test_summary_entry_without_its_header(tmp_path: Path, ruleset: RuleSet) -> None:
    hits = _scan(tmp_path, ruleset, (
        "  rank      : 0 (local_rank: 0)\n"
        "  exitcode  : -11 (pid: 6421)\n"
        "  error_file: <N/A>\n"
        "  traceback : Signal 11 (SIGSEGV) received by PID 6421\n"
    ))
    entry = next(h for h in hits if h[1] == "torch.elastic_summary_entry")
    assert entry[2] == {"rank": "0", "local_rank": "0", "exitcode": "-11", "pid": "6421"}


def test_mpi_peer_disconnected_names_the_peer_host(tmp_path: Path, ruleset: RuleSet) -> None:
    hits = _scan(tmp_path, ruleset, (
        "An MPI communication peer process has unexpectedly disconnected.  This\n"
        "usually indicates a failure in the peer process (e.g., a crash or\n"
        "otherwise exiting without calling MPI_FINALIZE first).\n"
        "\n"
        "  Local host: reco-zl-c4-reco313\n"
        "  Local PID:  7720\n"
        "  Peer host:  reco-zl-c4-reco316\n"
    ))
    assert ("launcher.mpi_peer_disconnected", {"host": "reco-zl-c4-reco316"}) in [(h[1], h[2]) for h in hits]


def test_remapped_rows_pending(tmp_path: Path, ruleset: RuleSet) -> None:
    hits = _scan(tmp_path, ruleset, (
        "    Remapped Rows\n"
        "        Correctable Error                 : 0\n"
        "        Uncorrectable Error               : 4\n"
        "        Pending                           : Yes\n"
    ), name="nvidia-smi.txt")
    assert [h[1] for h in hits] == ["nvml.remap_pending_uncorrectable"]
    clean = _scan(tmp_path, ruleset, "    Remapped Rows\n        Pending                           : No\n", name="smi2.txt")
    assert clean == []


def test_ranks_and_hosts_reach_the_events(tmp_path: Path, ruleset: RuleSet) -> None:
    hits = _scan(tmp_path, ruleset, (
        "2019-06-02T16:13:44.884Z: [1,12]<stdout>:container-e275-1553839402050-12124-01-000057:815:864 [0] "
        "transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local catastrophic error\n"
        "[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread terminated with exception: CUDA error: "
        "uncorrectable ECC error encountered\n"
    ), name="mixed.log")
    async_hit = next(h for h in hits if h[1] == "nccl.ib_async_event")
    assert async_hit[3] == 12 and async_hit[5] == "container-e275-1553839402050-12124-01-000057"
    ecc = next(h for h in hits if h[1] == "cuda.ecc_uncorrectable")
    assert ecc[3] == 1
