"""The fifty-first session's runs on accelerators other than NVIDIA's: their runtimes' own words
for a device's faults (Ascend's CANN result codes and HCCL, AWS Neuron's runtime statuses and
allocator, Intel Gaudi's device memory, Intel GPUs' page faults), and a node's torchrun output
named for its host, no rank."""

from __future__ import annotations

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

_ELASTIC_GLOG = (
    "W0605 08:32:50.547000 386933 torch/distributed/run.py:779] \n"
    "W0605 08:32:50.547000 386933 torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each"
    " process to be 1 in default\n")


def test_an_ascend_node_log_named_for_its_host_and_a_device_oom(tmp_path, ruleset: RuleSet) -> None:
    # "train_ascend-23.log" is node ascend-23's torchrun output (its launcher's glog lines say so),
    # no rank 23's; the NPU's out-of-memory error is what failed, the HCCL collective's failure on
    # the other node only followed it (its time is earlier: the nodes' clocks differ)
    node23 = (_ELASTIC_GLOG
              + "RuntimeError: NPU out of memory. Tried to allocate 6.00 GiB (NPU 1; 60.97 GiB total capacity; 58.29 GiB"
              " already allocated; 58.29 GiB current active; 251.91 MiB free; 58.69 GiB reserved in total by PyTorch)\n"
              "E0605 08:55:32.457000 386933 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1)"
              " local_rank: 1 (pid: 61497) of binary: /usr/bin/python3\n"
              "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
              "============================================================\n"
              "main.py FAILED\n"
              "------------------------------------------------------------\n"
              "Failures:\n"
              "  <NO_OTHER_FAILURES>\n"
              "------------------------------------------------------------\n"
              "Root Cause (first observed failure):\n"
              "[0]:\n"
              "  time      : 2025-06-05_08:55:32\n"
              "  host      : ascend-23\n"
              "  rank      : 9 (local_rank: 1)\n"
              "  exitcode  : 1 (pid: 61497)\n"
              "  error_file: <N/A>\n"
              "============================================================\n")
    node22 = (_ELASTIC_GLOG.replace("386933", "334690")
              + "[rank1]: RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function error:"
              " HcclAllreduce, error code is 7\n"
              "[ERROR] 2025-06-05-08:55:28 (PID:78263, Device:0, RankID:0) ERR01100 OPS call acl api failed\n"
              "E0605 08:55:42.174000 334690 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1)"
              " local_rank: 0 (pid: 78263) of binary: /usr/bin/python3\n")
    seen = incidents_of(tmp_path, {"train_ascend-23.log": node23, "train_ascend-22.log": node22}, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM and seen[0].rank == 9


def _npu(code: int) -> str:
    return ("[rank3]: Traceback (most recent call last):\n"
            '[rank3]:   File "/workspace/train.py", line 212, in <module>\n'
            "[rank3]:     torch.npu.synchronize()\n"
            "[rank3]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU"
            f" function error: AclrtSynchronizeDeviceWithTimeout, error code is {code}\n")


def test_ascend_runtime_codes_name_the_device_fault(tmp_path, ruleset: RuleSet) -> None:
    # 507010: the device's task scheduler lost its heartbeat; 507053: a memory UCE; 507055 is a
    # remote device's suspected fault, not this one's
    lost = incidents_of(tmp_path / "a", {"rank3.log": _npu(507010)}, ruleset)
    assert lost and lost[0].cause is Cause.GPU_HARDWARE and lost[0].rank == 3
    uce = incidents_of(tmp_path / "b", {"rank3.log": _npu(507053)}, ruleset)
    assert uce and uce[0].cause is Cause.ECC_MEMORY
    remote = incidents_of(tmp_path / "c", {"rank3.log": _npu(507055)}, ruleset)
    assert not remote or remote[0].cause is not Cause.ECC_MEMORY


def _neuron(rank: int, status: int, name: str) -> str:
    return (f"[rank{rank}]: Traceback (most recent call last):\n"
            f'[rank{rank}]:   File "/workspace/main.py", line 177, in train_step\n'
            f"[rank{rank}]:     xm.mark_step()\n"
            f"[rank{rank}]: RuntimeError: Bad StatusOr access: INTERNAL: From /job:localservice/replica:0/task:0:\n"
            f"[rank{rank}]: 2 root error(s) found.\n"
            f'[rank{rank}]:   (0) INTERNAL: nrt_execute status={status}, error message="{name}".\n'
            f"[rank{rank}]: \t [[{{{{node XRTExecute}}}}]]\n")


def test_neuron_runtime_statuses(tmp_path, ruleset: RuleSet) -> None:
    # the runtime's status below XRT's exception names the device's fault
    ecc = incidents_of(tmp_path / "a", {"slurm-9756773.out": _neuron(34, 1201, "NRT_EXEC_HW_ERR_HBM_UE")
                                        + _neuron(2, 1, "NRT_FAILURE")}, ruleset)
    assert ecc and ecc[0].cause is Cause.ECC_MEMORY and ecc[0].rank == 34
    fault = incidents_of(tmp_path / "b", {"slurm-1.out": _neuron(61, 1202, "NRT_EXEC_HW_ERR_NC_UE")}, ruleset)
    assert fault and fault[0].cause is Cause.GPU_HARDWARE
    oom = ("2024-Oct-15 18:01:17.728750  3882:3882  ERROR  TDRV:dmem_alloc_internal                     Failed to alloc"
           " DEVICE memory: 180355072\n")
    seen = incidents_of(tmp_path / "c", {"rank0.log": oom}, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM


def test_gaudi_and_intel_gpu_device_errors(tmp_path, ruleset: RuleSet) -> None:
    hpu = "[rank9]: RuntimeError: [Rank:9] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for size::536870912 (512)MB\n"
    seen = incidents_of(tmp_path / "a", {"deepspeed_train.log": hpu}, ruleset)
    assert seen and seen[0].cause is Cause.CUDA_OOM and seen[0].rank == 9
    xpu = ("Segmentation fault from GPU at 0x2c95e467b000, ctx_id: 6 (CCS) type: 0 (NotPresent), level: 1 (PDE),"
           " access: 1 (Write), banned: 1, aborting.\n"
           "Abort was called at 279 line in file:\n"
           "/builddir/intel-compute-runtime/shared/source/os_interface/linux/drm_neo.cpp\n")
    seen = incidents_of(tmp_path / "b", {"train_llm.o6660134": xpu}, ruleset)
    assert seen and seen[0].cause is Cause.ILLEGAL_MEMORY_ACCESS
