"""A rank's process dies of a signal or a CUDA fault: SIGSEGV in an extension, Xid 31 (MMU fault,
illegal memory access), Xid 43 (device-side assert)."""

from __future__ import annotations

from typing import Any

from .agent import Agent, Exit
from .expected import expect, incident, others
from .failures import (
    conn_closed,
    cpp_frames,
    cuda_error_tail,
    pg_not_destroyed,
    user_frames,
)
from .kernel import Kernel, gpu_id_lines, xid
from .model import DGX_H100, E23, E24, E27, WS_4GPU, WS_4GPU_B
from .training import make_comm, schedule, std_run_start, train
from .writer import Scenario, Stream


def sc_sigsegv(sc: Scenario) -> dict[str, Any]:
    era = E23
    (node,) = sc.nodes(["ws-gpu-1"], WS_4GPU_B)
    procs = sc.procs([node], 4)
    comm = make_comm(sc, procs, net="Socket")
    bad = procs[1]
    streams = [Stream(sc, f"ws-gpu-1/rank{p.rank}.log", p, era, py="bracket") for p in procs]
    t_train = std_run_start(sc, streams, comm, "diffusion unet finetune (flash-attn 2.5.8)")
    last = 3311
    sch = schedule(sc.rng, t_train, 1, last, 288.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 50, 20_000)
    t_fail = sch.at(last) + 0.11
    sb = streams[1]
    site = era.site
    sb.raw(t_fail, "Fatal Python error: Segmentation fault", "",
           "Current thread 0x00007f5e2bfff640 (most recent call first):",
           f'  File "{site}/flash_attn/flash_attn_interface.py", line 96 in _flash_attn_varlen_forward',
           f'  File "{site}/flash_attn/flash_attn_interface.py", line 475 in forward',
           f'  File "{site}/torch/autograd/function.py", line 598 in apply',
           '  File "/home/ws/unet/attention.py", line 64 in forward',
           f'  File "{site}/torch/nn/modules/module.py", line 1541 in _call_impl',
           '  File "/home/ws/unet/train.py", line 301 in train_step',
           '  File "/home/ws/unet/train.py", line 377 in main',
           '  File "/home/ws/unet/train.py", line 402 in <module>', "",
           "Thread 0x00007f5f6a1fe640 (most recent call first):",
           "  File \"/opt/conda/lib/python3.10/threading.py\", line 324 in wait",
           "  File \"/opt/conda/lib/python3.10/threading.py\", line 607 in wait",
           f'  File "{site}/tqdm/_monitor.py", line 60 in run', "",
           "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, "
           "torch._C, torch._C._fft, torch._C._linalg, torch._C._nn, torch._C._sparse, torch._C._special, "
           "flash_attn_2_cuda (total: 21)")
    kd = Kernel(sc, "ws-gpu-1/dmesg.log", node, "dmesg_T")
    kd.boot()
    kd.add(t_fail + 0.01, f"python[{bad.pid}]: segfault at 10 ip 00007f5e5a3b1c2d sp 00007f5e2bffd0a0 error 4 in "
           "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so[7f5e59e00000+1a00000] likely on CPU 12 (core 6, socket 0)",
           6)
    kd.add(t_fail + 0.01, "Code: 48 8b 47 10 48 85 c0 74 1d 48 8b 50 08 48 39 d6 72 14 <48> 8b 08 48 39 ce 73 0c", 6)
    kd.flush()
    for s in streams:
        if s.p is not bad:
            conn_closed(s, t_fail + 0.2 + 0.003 * s.p.local, bad.local)
    ag = Agent(sc, "ws-gpu-1/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown([Exit(bad, t_fail + 0.15, -11)], alive=[p for p in procs if p is not bad], poll=5.0)
    return expect(
        "One 4-GPU workstation, files rank0.log..rank3.log. Rank 1 prints 'Fatal Python error: Segmentation fault' in "
        "flash-attn; dmesg -T has the matching 'segfault at 10' line for its pid; torchrun reports exitcode -11 "
        "(SIGSEGV). No GPU hardware evidence.",
        [incident("crash_signal", rank=1, node="ws-gpu-1", collateral=others(procs, 1), drain=False)])


def sc_xid31(sc: Scenario) -> dict[str, Any]:
    era = E27
    (node,) = sc.nodes(["trn-node-12"], DGX_H100)
    procs = sc.procs([node], 4, nvml_offset=4)  # CUDA_VISIBLE_DEVICES=4,5,6,7
    comm = make_comm(sc, procs)
    bad = procs[1]
    streams = [Stream(sc, f"trn-node-12/rank_{p.rank}.log", p, era, py="hf", logger="sft.py:88") for p in procs]
    t_train = std_run_start(sc, streams, comm, "sft mistral-7b (transformers 4.46.2, CUDA_VISIBLE_DEVICES=4,5,6,7)",
                            extra=["***** Running training *****", "  Num examples = 182,113", "  Num Epochs = 3"])
    last = 1187
    sch = schedule(sc.rng, t_train, 1, last, 611.0)
    for s in streams:
        train(s, "hf", sch, 1, last, 10, 17_073)
    t_fail = sch.at(last) + 0.27
    kd = Kernel(sc, "trn-node-12/dmesg.log", node, "dmesg_T")
    kd.boot()
    for line in gpu_id_lines(sc, bad.pci):
        kd.add(t_fail, line)
    kd.add(t_fail, xid(bad.pci, 31, "channel 0x0000000a, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 "
                       "faulted @ 0x7f3a_63e00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE", pid=bad.pid))
    sb = streams[1]
    te = t_fail + 0.004
    term = (f"{era.pgp(1)} Process group watchdog thread terminated with exception: CUDA error: an illegal memory "
            "access was encountered")
    tail = cuda_error_tail("x")[1:]
    frames = cpp_frames(sb, "c10_cuda")
    origin = ("Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 "
              "(most recent call first):")
    sb.c10d(te, "E", "ProcessGroupNCCL.cpp:1896", term, *tail, origin, *frames, "")
    sb.raw(te + 0.001, "terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {term}",
           *tail, origin, *frames, "")
    ag = Agent(sc, "trn-node-12/launcher.log", node, era, "sft.py")
    ag.banner(0.5)
    t_done = ag.teardown([Exit(bad, te + 0.2, -6)], alive=[p for p in procs if p is not bad])
    for s in streams:
        if s.p is not bad:
            conn_closed(s, te + 0.25, bad.local)
            kd.add(t_done + 0.3 + 0.01 * s.p.local, xid(s.p.pci, 45, "Ch 00000008", pid=s.p.pid))
    kd.flush()
    return expect(
        "One node, job on GPUs 4-7 (CUDA_VISIBLE_DEVICES, so cudaDev 1 is nvmlDev 5). dmesg -T shows Xid 31 (MMU "
        "fault) on PCI 0000:ab:00 with pid= rank 1's pid (from its NCCL init line); rank 1's watchdog reports 'CUDA "
        "error: an illegal memory access was encountered' and aborts (-6). An application fault: do not drain. The "
        "Xid 45 lines on the other GPUs are channel cleanup after torchrun's SIGTERM.",
        [incident("illegal_memory_access", rank=1, node="trn-node-12", gpu="0000:ab:00", collateral=others(procs, 1),
                  drain=False)])


def sc_device_assert(sc: Scenario) -> dict[str, Any]:
    era = E24
    (node,) = sc.nodes(["ws-gpu-3"], WS_4GPU)
    procs = sc.procs([node], 2)
    comm = make_comm(sc, procs, net="Socket")
    bad = procs[1]
    streams = [Stream(sc, f"ws-gpu-3/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "token classifier finetune (2 GPUs)")
    last = 2718
    sch = schedule(sc.rng, t_train, 1, last, 212.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 50, 6_000)
    t_fail = sch.at(last) + 0.09
    sb = streams[1]
    asserts = []
    for i in range(6):
        asserts.append(f"/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [{61 + i // 3},0,0], "
                       f"thread: [{32 * (i % 3) + 64},0,0] Assertion `-sizes[i] <= index && index < sizes[i] && "
                       "\"index out of bounds\"` failed.")
    sb.raw(t_fail, *asserts)
    sb.py(t_fail + 0.02, "ERROR", "batch 2719 failed (labels max=9, num_labels=9)")
    sb.tb(t_fail + 0.02, [
        *user_frames(sb, "finetune.py", [
            ("/home/nlp/finetune.py", 201, "<module>", "main()"),
            ("/home/nlp/finetune.py", 177, "main", "total += loss.item()"),
        ]),
        *["RuntimeError: " + x if i == 0 else x for i, x in enumerate(cuda_error_tail("device-side assert triggered"))],
    ])
    pg_not_destroyed(sb, t_fail + 0.3)
    kl = Kernel(sc, "ws-gpu-3/kern.log", node, "syslog")
    kl.boot()
    kl.add(t_fail + 0.001, xid(bad.pci, 43, "Ch 00000018", pid=bad.pid, name="python"))
    kl.flush()
    conn_closed(streams[0], t_fail + 0.5, bad.local)
    ag = Agent(sc, "ws-gpu-3/launcher.log", node, era, "finetune.py")
    ag.banner(0.5)
    ag.teardown([Exit(bad, t_fail + 0.45, 1)], alive=[procs[0]])
    return expect(
        "One workstation, 2 ranks. Rank 1 prints six 'IndexKernel.cu:93 ... Assertion ... index out of bounds failed' "
        "lines, then 'RuntimeError: CUDA error: device-side assert triggered' (a label outside the class range), and the "
        "kernel log has Xid 43 for PCI 0000:41:00 with rank 1's pid. Xid 43 is an application fault: fix the code, do "
        "not drain. Rank 0 sees 'Connection closed by localRank 1' and is SIGTERMed.",
        [incident("illegal_memory_access", rank=1, node="ws-gpu-3", gpu="0000:41:00", collateral=[0], drain=False)])
