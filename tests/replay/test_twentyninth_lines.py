"""The twenty-ninth session's cases: a Ray actor named with parentheses ("ActorWorker(reference-0)"),
a Ray process's own fatal check, memory registration refused by Mooncake's NIC or by libfabric's
EFA provider, llama.cpp's RPC client losing its remote worker, and a rule anchored at a line that
begins with its program's own time stamp."""

from __future__ import annotations

from pathlib import Path

from detector.authoring.explain import explain_line
from detector.rules.compile import load_ruleset
from detector.rules.engine import RuleSet
from detector.types import Cause, StreamKind
from tests.support.replaying import causes_of, incidents_of


def test_a_named_ray_actor_s_prefix_places_its_traceback_on_its_node(tmp_path: Path, ruleset: RuleSet) -> None:
    prefix = "(ActorWorker(reference-0) pid=7034, ip=22.1.34.130) "
    text = "".join(prefix + line + "\n" for line in (
        "ERROR:log_rank_reference-0_0_16:Traceback (most recent call last):",
        '  File "/roll/distributed/scheduler/decorator.py", line 295, in inner',
        "    result = func(*args, **kwargs)",
        "ValueError: bad batch"))
    seen = incidents_of(tmp_path / "roll", {"console.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and seen[0].node == "22.1.34.130", seen


def test_a_ray_fatal_check_is_a_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("[2026-05-06 23:35:23,306 C 129 129] (raylet) experimental_mutable_object_provider.cc:154:\n"
            "  An unexpected system state has occurred. You have likely discovered a bug in Ray.\n"
            "  Status not OK: ChannelError: Channel closed.\n"
            "ray::operator<<()\n")
    assert causes_of(tmp_path / "ray", {"raylet.log": text}, ruleset)[:1] == [Cause.CRASH_SIGNAL]
    # as the driver's console forwards it, behind the raylet's own tag
    forwarded = ("(raylet, ip=10.0.0.7) [2025-05-19 09:49:02,102 C 594234 594234] (raylet) "
                 "experimental_mutable_object_provider.cc:153: Check failed: _s.ok() Status not OK: ChannelError: "
                 "Channel closed.\n")
    assert causes_of(tmp_path / "driver", {"driver.log": forwarded}, ruleset)[:1] == [Cause.CRASH_SIGNAL]


def test_memory_the_nic_would_not_register_is_the_network(tmp_path: Path, ruleset: RuleSet) -> None:
    mooncake = ("I0605 10:48:27.542429 10134 rdma_context.cpp:125] RDMA device: mlx5_0, LID: 1698\n"
                "E0605 10:48:27.885119 10136 rdma_context.cpp:203] Failed to register memory 0x7b375b400000: "
                "Invalid argument [22]\n"
                "[2025-06-05 10:48:27 TP7] Mooncake memory registration failed.\n")
    seen = incidents_of(tmp_path / "mc", {"console.log": mooncake}, ruleset)
    # (SGLang's own line for it names the TP rank)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.NETWORK, 7), seen
    efa = ("libfabric:718890:1658904526::efa:mr:efa_mr_reg_impl():517<warn> Unable to register MR: Cannot allocate "
           "memory\n"
           "libfabric:718890:1658904526::efa:cq:rxr_ep_grow_rx_pkt_pools():1585<warn> cannot allocate memory for "
           "EFA's RX packet pool. error: Cannot allocate memory\n")
    assert causes_of(tmp_path / "efa", {"console.log": efa}, ruleset)[:1] == [Cause.NETWORK]


def test_llama_cpp_s_rpc_client_losing_its_worker_is_the_worker_s_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("/ggml-rpc.cpp:540: Remote RPC server crashed or returned malformed response\n"
            "WARNING: Using native backtrace. Set GGML_BACKTRACE_LLDB for more info.\n"
            "0   libggml-base.0.18.0.dylib           0x00000001046953d0 ggml_print_backtrace + 276\n")
    seen = incidents_of(tmp_path / "rpc", {"cli.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.CRASH_SIGNAL and not seen[0].drain, seen


def test_an_anchored_rule_reads_a_line_that_begins_with_a_stamp_as_its_pattern_does(tmp_path: Path) -> None:
    """A rule anchored at the line's start is tried after a log collector's stamp and, failing
    that, on the whole line: a pattern may begin with the program's own stamp (before, the engine
    tried only what followed the stamp, so such a rule never matched a file while `rules test
    --explain` said it matched the line)."""
    pack = tmp_path / "pack.yaml"
    pack.write_text("""
rules:
  - id: t.stamped
    description: a test rule anchored at its program's own stamp
    source: any
    role: initiator
    cause: crash_signal
    severity: error
    pattern: '^\\[[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:,]{12} C [0-9]{1,6}\\] boom'
    examples:
      - line: '[2026-05-06 23:35:23,306 C 129] boom'
        fields: {}
  - id: t.after_stamp
    description: a test rule anchored after a collector's stamp
    source: any
    role: initiator
    cause: python_exception
    severity: error
    pattern: '^ValueError: (?P<what>.+)'
    examples:
      - line: 'ValueError: bad'
        fields: {what: bad}
""")
    for engine in ("auto", "re"):
        rules = load_ruleset(shipped=[pack], engine=engine)
        stamped = incidents_of(tmp_path / engine / "a", {"a.log": "[2026-05-06 23:35:23,306 C 129] boom\n"}, rules)
        assert [i.cause for i in stamped] == [Cause.CRASH_SIGNAL], engine
        after = incidents_of(tmp_path / engine / "b", {"b.log": "2026-05-06T23:35:23Z ValueError: bad\n"}, rules)
        assert [i.cause for i in after] == [Cause.PYTHON_EXCEPTION], engine
        hits = explain_line("2026-05-06T23:35:23Z ValueError: bad", rules.rules)
        assert [h.rule.id for h in hits.hits] == ["t.after_stamp"], engine


def test_a_timeout_line_cut_before_its_size_is_no_other_collective(tmp_path: Path, ruleset: RuleSet) -> None:
    """Two ranks time out in ALLREDUCE #50; rank 2's line was cut before its NumelIn (a paste's
    excerpt): no rank says another size, so the ranks hung in one collective (before: 'ALLREDUCE
    #50' and 'ALLREDUCE(1) #50' read as different collectives, a collective mismatch)."""
    text = ("[rank3]:[E1016 03:33:45.317536384 ProcessGroupNCCL.cpp:568] [Rank 3] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=50, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
            "600011 milliseconds before timing out.\n"
            "[rank2]:[E1016 03:33:45.380539738 ProcessGroupNCCL.cpp:568] [Rank 2] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=50, OpType=ALLREDUCE, NumelIn=1, Nume\n")
    assert causes_of(tmp_path / "cut", {"console.log": text}, ruleset)[:1] == [Cause.HANG]
    # with both sizes given and different, the same collective of two sizes is still a mismatch
    uneven = text.replace("NumelIn=1, Nume\n", "NumelIn=2, NumelOut=2, Timeout(ms)=600000) ran for 600011 "
                          "milliseconds before timing out.\n")
    assert causes_of(tmp_path / "uneven", {"console.log": uneven}, ruleset)[:1] == [Cause.COLLECTIVE_MISMATCH]
    # three ranks: two give their sizes, which differ, and one's line is cut: the two are compared
    three = uneven + text.splitlines(keepends=True)[1].replace("[rank2]", "[rank1]").replace("[Rank 2]", "[Rank 1]")
    assert causes_of(tmp_path / "three", {"console.log": three}, ruleset)[:1] == [Cause.COLLECTIVE_MISMATCH]
    # a size printed negative (a corrupt tensor's) is still a size, and another than its peers'
    line = ("[rank{r}]:[E0705 07:48:18.449702024 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=52958, OpType=ALLGATHER, NumelIn={n}, NumelOut={n}, "
            "Timeout(ms)=600000) ran for 600443 milliseconds before timing out.\n")
    odd = line.format(r=0, n=1) + line.format(r=1, n=1) + line.format(r=2, n=-2047)
    seen = incidents_of(tmp_path / "odd", {"console.log": odd}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.COLLECTIVE_MISMATCH, 2), seen


def test_invalid_usage_is_a_launch_error_wherever_the_ranks_sit(tmp_path: Path, ruleset: RuleSet) -> None:
    """NCCL's set-up lines put ranks 0 and 1 on one GPU (busId 100000) of one pod, then the
    communicator fails with the bare 'invalid usage' (no 'Duplicate GPU detected' line): a launch
    error, not ranks issuing different collectives (PA-trtllm-9263). The same class with each
    rank on a GPU of its own is the program's misuse of NCCL too (the real logs that print it
    were labelled so, none a mismatch of collectives): no node is drained for it."""
    init = ("pod-0:{pid}:{pid} [0] NCCL INFO ncclCommInitRank comm 0x397e3800 rank {rank} nranks 2 cudaDev 0 nvmlDev 0 "
            "busId 100000 commId 0xaa9becea043c4e6c - Init START\n")
    error = ("[11/18/2025-09:33:30] [TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: [TensorRT-LLM][ERROR] "
             "Assertion failed: Failed, NCCL error ../tensorrt_llm/runtime/ncclCommunicator.cpp:90 'invalid usage (run "
             "with NCCL_DEBUG=WARN for details)'\n")
    shared = init.format(pid=42, rank=0) + init.format(pid=43, rank=1) + error
    apart = init.format(pid=42, rank=0) + init.format(pid=43, rank=1).replace("busId 100000", "busId 200000") + error
    for name, text in (("shared", shared), ("apart", apart)):
        seen = incidents_of(tmp_path / name, {"console.log": text}, ruleset)
        assert seen and seen[0].cause is Cause.PYTHON_EXCEPTION and not seen[0].drain, (name, seen)


def test_an_hccl_port_already_bound_is_the_network_of_that_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("(VllmWorker rank=2 pid=10233) ERROR 06-17 06:11:34 [multiproc_executor.py:492] EJ0003: [PID: 10233] "
            "2025-06-17-06:11:32.832.492 Failed to bind the IP port. Reason: The IP address and port have been bound "
            "already.\n"
            "(VllmWorker rank=2 pid=10233) ERROR 06-17 06:11:34 [multiproc_executor.py:492] RuntimeError: "
            "createHCCLComm:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:6 HCCL function error\n")
    seen = incidents_of(tmp_path / "hccl", {"console.log": text}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.NETWORK, 2), seen


def test_nccl_2_26_s_refused_connect_without_a_peer_is_read(ruleset: RuleSet) -> None:
    line = ("[2025-10-20 20:38:36] g15:2039491:2039656 [0] misc/socket.cc:544 NCCL WARN socketPollConnect: connect "
            "returned Connection refused, exceeded error retry count (35)")
    assert [m.rule.id for m in ruleset.match(line, StreamKind.RANK_LOG)] == ["nccl.socket_connect_refused"]
    retrying = ("g15:2039491:2039656 [0] NCCL INFO socketPollConnect: connect returned Connection refused, retrying "
                "(1/34) after sleep for 100 msec")
    assert "nccl.socket_connect_refused" not in [m.rule.id for m in ruleset.match(retrying, StreamKind.RANK_LOG)]


def test_tensorflow_collective_group_size_mismatch(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("2019-11-04 16:59:38.489335: W tensorflow/core/common_runtime/base_collective_executor.cc:216] "
            "BaseCollectiveExecutor::StartAbort Internal: Collective Op  has group_size 8 and group_key2 but that group "
            "has size 4\n")
    seen = incidents_of(tmp_path / "tf", {"worker0.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.COLLECTIVE_MISMATCH and not seen[0].drain, seen
    named = ("tensorflow.python.framework.errors_impl.InternalError: Collective Op CollectiveReduce: Reduce(Add,Id) "
             "has group_size 6 and group_key 1 but that group has size 4\n")
    assert causes_of(tmp_path / "named", {"worker0.log": named}, ruleset)[:1] == [Cause.COLLECTIVE_MISMATCH]


def test_the_multiprocessing_resource_tracker_s_keyerror_is_no_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    """multiprocessing's resource tracker (a helper process) prints "KeyError: '/psm_...'" when a
    shared-memory segment is unregistered twice; vLLM runs on (fresh28's ON-vllm-5468, healthy)."""
    tracker = ("Traceback (most recent call last):\n"
               '  File "/usr/lib/python3.10/multiprocessing/resource_tracker.py", line 209, in main\n'
               "    cache[rtype].remove(name)\n"
               "KeyError: '/psm_10b3d52e'\n")
    assert causes_of(tmp_path / "ok", {"console.log": tracker * 3}, ruleset) == []
    failing = tracker + ("Traceback (most recent call last):\n"
                         '  File "/app/serve.py", line 3, in <module>\n'
                         "    main()\n"
                         "ValueError: bad config\n")
    assert causes_of(tmp_path / "bad", {"console.log": failing}, ruleset)[:1] == [Cause.PYTHON_EXCEPTION]


def test_a_ray_compiled_graph_timeout_is_a_hang(tmp_path: Path, ruleset: RuleSet) -> None:
    text = ("ERROR 04-16 10:35:25 [core.py:387] EngineCore hit an exception: Traceback (most recent call last):\n"
            "ERROR 04-16 10:35:25 [core.py:387]     raise RayChannelTimeoutError(\n"
            "ERROR 04-16 10:35:25 [core.py:387] ray.exceptions.RayChannelTimeoutError: System error: If the execution is "
            "expected to take a long time, increase RAY_CGRAPH_get_timeout which is currently 10 seconds. Otherwise, "
            "this may indicate that the execution is hanging.\n")
    seen = incidents_of(tmp_path / "cgraph", {"engine.log": text}, ruleset)
    assert seen and seen[0].cause is Cause.HANG and not seen[0].drain, seen


def test_tensorrt_llm_s_rank_tag_names_the_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    """TensorRT-LLM tags its lines with the process's MPI rank ("[TRT-LLM] [RANK 1]"): the rank that
    ran out of memory is that one, not the rank of the GPU its message names (PB-trtllm-6281: rank 1
    ran out on GPU 0, where it had wrongly allocated)."""
    text = ("[07/23/2025-06:37:06] [TRT-LLM] [RANK 1] [E] Error executing load_single_module with args "
            "('model.layers.29.mlp.gate_up_proj', Linear()): CUDA out of memory. Tried to allocate 50.00 MiB. GPU 0 "
            "has a total capacity of 23.53 GiB of which 12.44 MiB is free.\n")
    seen = incidents_of(tmp_path / "trt", {"console.log": text}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.CUDA_OOM, 1), seen


def test_a_dead_verl_worker_s_actor_name_tells_its_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    """verl names its colocated workers "<prefix>WorkerDict_<placement group>:<local rank>"; Ray's
    report of the dead actor lists that name a few lines after the error: rank 3 of the worker
    group. A later placement group's name tells no rank (its ranks start after the earlier groups')."""
    text = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
            "        class_name: create_colocated_worker_cls.<locals>.WorkerDict\n"
            "        actor_id: 5d1d2b3ab2ff1bbfa6b6d3f701000000\n"
            "        pid: 2396579\n"
            "        name: {name}\n"
            "        namespace: 6e7b2a5d-2b2f-4c1e-9d2c-1f3f7f0a2c11\n"
            "        ip: 10.242.3.193\n")
    seen = incidents_of(tmp_path / "g0", {"driver.log": text.format(name="07GxnAWorkerDict_0:3")}, ruleset)
    assert seen and (seen[0].cause, seen[0].rank) == (Cause.UNKNOWN, 3), seen
    later = incidents_of(tmp_path / "g2", {"driver.log": text.format(name="OvenE5WorkerDict_2:5")}, ruleset)
    assert later and later[0].rank is None, later
