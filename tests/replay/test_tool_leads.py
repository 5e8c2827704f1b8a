"""torchrun's ``[rankN]:`` behind what the tool that gathered the lines put before it: kubectl's
``--prefix``, docker compose, pdsh, a viewer's line numbers. The rank is read through the lead;
a ``[rankN]:`` inside a message is not a prefix."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.sources.prefixes import PrefixStyle, strip_prefix
from detector.types import Cause
from tests.support.replaying import incidents_of, write_run

TIMEOUT = ("[E1202 10:10:00.000000 111 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
           "600002 milliseconds before timing out.")
FAULT = " RuntimeError: CUDA error: an illegal memory access was encountered"

LEADS = {
    "kubectl": ("[pod/trainer-worker-3/pytorch] ", "[pod/trainer-worker-0/pytorch] "),
    "compose": ("trainer-1  | ", "trainer-1  | "),
    "pdsh": ("node03: ", "node00: "),
    "line-numbers": ("  101 | ", "  102 | "),
    "compose-wide": ("worker-0         | ", "worker-1         | "),
    "grep": ("node3/rank3.log:", "node0/rank0.log:"),
    "kubectl-torchrun": ("[pod/trainer-worker-0/pytorch] [default3]:", "[pod/trainer-worker-0/pytorch] [default0]:"),
}


@pytest.mark.parametrize("tool", sorted(LEADS))
def test_the_rank_behind_a_tool_s_lead(tmp_path: Path, ruleset: RuleSet, tool: str) -> None:
    faulty, waiting = LEADS[tool]
    log = f"{faulty}[rank3]:{FAULT}\n{waiting}[rank0]:{TIMEOUT}\n"
    [incident] = incidents_of(tmp_path, {"train.log": log}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.ILLEGAL_MEMORY_ACCESS, 3)


@pytest.mark.parametrize("line", [
    "RuntimeError: worker said [rank3]: boom",
    "ValueError: bad value in [rank3]: config",
    "RuntimeError: [rank3]: boom",
    "foo[rank3]: bar",
])
def test_a_rank_prefix_quoted_in_a_message_is_no_prefix(line: str) -> None:
    assert strip_prefix(line, PrefixStyle.NONE).rank is None


def test_the_lead_is_taken_off_the_message() -> None:
    pre = strip_prefix("trainer-1  | [rank3]: RuntimeError: boom", PrefixStyle.NONE)
    assert (pre.rank, pre.message) == (3, "RuntimeError: boom")


def test_vllm_s_logged_traceback_is_read(tmp_path: Path, ruleset: RuleSet) -> None:
    """vLLM logs a worker's traceback line by line behind its own header ("(VllmWorker rank=3
    pid=44710) ERROR 08-20 09:48:31 [multiproc_executor.py:487] "): the exception is read, on the
    worker's rank."""
    head = "(VllmWorker rank=3 pid=44710) ERROR 08-20 09:48:31 [multiproc_executor.py:487] "
    log = (f"{head}WorkerProc hit an exception.\n{head}Traceback (most recent call last):\n"
           f'{head}  File "/vllm/vllm/v1/executor/multiproc_executor.py", line 482, in worker_busy_loop\n'
           f"{head}    output = func(*args, **kwargs)\n{head}ValueError: block table has 0 free blocks\n")
    [incident] = incidents_of(tmp_path, {"serve.log": log}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.PYTHON_EXCEPTION, 3)
    assert any("block table" in text for text in incident.evidence)


def test_vllm_s_header_alone_is_taken_off() -> None:
    pre = strip_prefix("INFO 08-20 09:48:31 [loader.py:12] Loading weights took 3.2 s", PrefixStyle.NONE)
    assert (pre.rank, pre.message) == (None, "Loading weights took 3.2 s")


CONTAINER = {
    # containerd / CRI-O, as a node keeps a pod's log (/var/log/pods/<pod>/<container>/0.log)
    "cri": ("2026-11-30T10:00:00.123456789Z stderr F [rank3]:{fault}\n"
            "2026-11-30T10:10:00.123456789Z stderr F [rank0]:{timeout}\n"),
    # Docker's json-file driver (/var/lib/docker/containers/<id>/<id>-json.log)
    "docker-json": ('{{"log":"[rank3]:{fault}\\n","stream":"stderr","time":"2026-11-30T10:00:00.1Z"}}\n'
                    '{{"log":"[rank0]:{timeout}\\n","stream":"stderr","time":"2026-11-30T10:10:00.1Z"}}\n'),
}


@pytest.mark.parametrize("runtime", sorted(CONTAINER))
def test_a_container_runtime_s_own_log_format(tmp_path: Path, ruleset: RuleSet, runtime: str) -> None:
    log = CONTAINER[runtime].format(fault=FAULT, timeout=TIMEOUT)
    report = replay_path(write_run(tmp_path, {"0.log": log}), ruleset)
    [incident] = report.incidents
    assert (incident.cause, incident.initiator.rank) == (Cause.ILLEGAL_MEMORY_ACCESS, 3)
    assert report.summary.start is not None and report.summary.start.minute == 0  # the runtime's own time


def test_a_cri_line_without_a_rank_prefix_loses_only_the_stream() -> None:
    pre = strip_prefix("2026-11-30T10:00:00.1Z stderr F ValueError: bad config", PrefixStyle.NONE)
    assert (pre.rank, pre.message) == (None, "2026-11-30T10:00:00.1Z ValueError: bad config")


@pytest.mark.parametrize("line", [
    "ERROR 08-20 09:48:31 worker_base.py:467] ValueError: bad config",  # vLLM before 0.8: no bracket
    "(VllmWorker TP3 pid=44710) ERROR 08-20 09:48:31 [multiproc_executor.py:487] ValueError: bad config",
    "(Worker_TP0 pid=12) ERROR 08-20 09:48:31 [multiproc_executor.py:487] ValueError: bad config",
    "[rank3]:ERROR 08-20 09:48:31 [multiproc_executor.py:596] ValueError: bad config",  # under torchrun
])
def test_vllm_s_headers_of_each_version(line: str) -> None:
    assert strip_prefix(line, PrefixStyle.NONE).message == "ValueError: bad config"


def test_a_structured_logger_s_json_records(tmp_path: Path, ruleset: RuleSet) -> None:
    """One JSON object a line (structlog, a collector's output): its message is read, with the
    rank, host and time the record names."""
    log = ('{"time": "2026-11-30T10:00:00Z", "rank": 3, "host": "gpu-node-3", "level": "ERROR", '
           '"msg": "RuntimeError: CUDA error: an illegal memory access was encountered"}\n'
           '{"time": "2026-11-30T10:10:00Z", "rank": 0, "host": "gpu-node-0", "level": "ERROR", "msg": "' + TIMEOUT + '"}\n')
    report = replay_path(write_run(tmp_path, {"train.log": log}), ruleset)
    [incident] = report.incidents
    assert (incident.cause, incident.initiator.rank, incident.initiator.node) == (Cause.ILLEGAL_MEMORY_ACCESS, 3,
                                                                                 "gpu-node-3")
    assert report.summary.start is not None


def test_a_json_line_that_is_no_log_record_is_left_as_it_is() -> None:
    assert strip_prefix('{"loss": 1.25, "step": 40}', PrefixStyle.NONE).message == '{"loss": 1.25, "step": 40}'


@pytest.mark.parametrize(("line", "rank"), [
    ("(Worker_TP2 pid=371746) ERROR 04-29 20:01:46 [multiproc_executor.py:962] boom", 2),
    ("(Worker_TP1_EP1 pid=293528) ERROR 04-29 20:01:46 [multiproc_executor.py:962] boom", 1),
    ("(Worker_DP0_TP3_EP3 pid=1539019) ERROR 04-29 20:01:46 [multiproc_executor.py:962] boom", 3),
    # another replica or pipeline stage: its TP index is not its rank
    ("(Worker_DP1_TP3_EP7 pid=1539019) ERROR 04-29 20:01:46 [multiproc_executor.py:962] boom", None),
    ("(Worker_PP1_TP3 pid=5) ERROR 04-29 20:01:46 [multiproc_executor.py:962] boom", None),
])
def test_vllm_v1_worker_names_give_the_tensor_parallel_rank_of_the_first_replica(line: str, rank: int | None) -> None:
    pre = strip_prefix(line, PrefixStyle.NONE)
    assert (pre.rank, pre.message) == (rank, "boom")


def test_a_vllm_workers_prefix_behind_docker_composes_is_read(tmp_path: Path, ruleset: RuleSet) -> None:
    pre = strip_prefix("glm5-lmc-replica  | (Worker_TP0 pid=488) ERROR 04-29 20:01:46 [multiproc_executor.py:962] "
                       "torch.AcceleratorError: CUDA error: an illegal memory access was encountered", PrefixStyle.NONE)
    assert pre.rank == 0 and pre.message.startswith("torch.AcceleratorError")
    # a message that merely holds " | (" keeps its text
    assert strip_prefix("a | (b) c", PrefixStyle.NONE).message == "a | (b) c"
    [incident] = incidents_of(tmp_path, {"compose.log": (
        "glm5-lmc-replica  | (Worker_TP4 pid=492) ERROR 04-29 20:01:46 [multiproc_executor.py:962] "
        "torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n")}, ruleset)
    assert (incident.cause, incident.rank) == (Cause.ILLEGAL_MEMORY_ACCESS, 4)
