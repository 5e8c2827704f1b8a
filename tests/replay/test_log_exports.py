"""Logs exported from a log platform (a JSON document of records, a CSV download) are read as
the records they hold, oldest first; and a NIC link that went down long before a job's own
failure of another cause, with no rank seeing a network error, is not that failure."""

from __future__ import annotations

import json
from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.support.exports import export_records, parse_time
from detector.types import Cause
from tests.support.replaying import incidents_of

_TRACE = [
    "[rank3]: Traceback (most recent call last):",
    '[rank3]:   File "train.py", line 88, in <module>',
    "[rank3]:     loss = model(batch)",
    "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered",
]


def test_times_of_the_platforms_are_read() -> None:
    assert parse_time("2024-04-29T13:16:19.576287000Z").isoformat() == "2024-04-29T13:16:19.576287+00:00"  # type: ignore[union-attr]
    assert parse_time("Oct 29, 2024 @ 13:08:12.721").isoformat() == "2024-10-29T13:08:12.721000+00:00"  # type: ignore[union-attr]
    assert parse_time(1743980042817).isoformat() == "2025-04-06T22:54:02.817000+00:00"  # type: ignore[union-attr]
    assert parse_time("1714038654762912768").isoformat() == "2024-04-25T09:50:54.762913+00:00"  # type: ignore[union-attr]
    assert parse_time("not a time") is None


def test_a_newest_first_json_array_becomes_records_oldest_first_one_per_line() -> None:
    doc = [{"timestamp": "2024-01-01T00:00:02Z", "textPayload": "second\nthird", "labels": {"host": "gpu-7"}},
           {"timestamp": "2024-01-01T00:00:01Z", "textPayload": "first", "labels": {"host": "gpu-7"}}]
    lines = [json.loads(x) for x in export_records(json.dumps(doc).encode(), "json").decode().splitlines()]  # type: ignore[union-attr]
    assert [x["log"] for x in lines] == ["first", "second", "third"]
    assert {x["host"] for x in lines} == {"gpu-7"}


def test_a_document_that_holds_no_records_is_not_an_export() -> None:
    assert export_records(b'{"TrainingJobName": "x", "TrainingJobStatus": "Failed"}', "json") is None
    assert export_records(b"timestamp,gpu,power\n1,0,300\n", "csv") is None


def test_gcloud_logging_read_json_is_diagnosed(tmp_path: Path, ruleset: RuleSet) -> None:
    records = [{"timestamp": f"2024-04-29T13:16:{10 + i:02d}.5Z", "severity": "ERROR", "textPayload": line,
                "resource": {"labels": {"instance_id": "1"}}, "labels": {"compute.googleapis.com/resource_name": "gpu-h100-017"}}
               for i, line in enumerate(_TRACE)]
    got = incidents_of(tmp_path, {"gcloud-logging-read.json": json.dumps(records[::-1], indent=2)}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3, "gpu-h100-017")]


def test_cloudwatch_events_json_is_diagnosed(tmp_path: Path, ruleset: RuleSet) -> None:
    doc = {"events": [{"timestamp": 1743980042817 + i, "message": line, "ingestionTime": 1743980044673}
                      for i, line in enumerate(_TRACE)]}
    got = incidents_of(tmp_path, {"algo-2-1743979743.json": json.dumps(doc, indent=1)}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]


def test_loki_query_api_json_is_diagnosed(tmp_path: Path, ruleset: RuleSet) -> None:
    doc = {"status": "success", "data": {"resultType": "streams", "result": [
        {"stream": {"pod": "llama-worker-1", "container": "pytorch"},
         "values": [[str(1714038654762912768 - i * 1_000_000_000), line] for i, line in enumerate(reversed(_TRACE))]}]}}
    got = incidents_of(tmp_path, {"loki.json": json.dumps(doc)}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3, "llama-worker-1")]


def test_a_kibana_csv_with_quoted_multi_line_messages_is_diagnosed(tmp_path: Path, ruleset: RuleSet) -> None:
    rows = ['"@timestamp","host.name","message"']
    rows.append('"Oct 29, 2024 @ 13:08:12.721","hgx-085","' + "\n".join(_TRACE[:3]) + '"')
    rows.append(f'"Oct 29, 2024 @ 13:08:12.722","hgx-085","{_TRACE[3]}"')
    got = incidents_of(tmp_path, {"kibana-discover-export.csv": "\n".join(rows) + "\n"}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3, "hgx-085")]


def test_a_dcgm_metrics_csv_is_still_read_as_metrics(tmp_path: Path, ruleset: RuleSet) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "rank0.log").write_text("\n".join(_TRACE) + "\n")
    (run / "dcgm.csv").write_text("timestamp,gpu,DCGM_FI_DEV_POWER_USAGE\n2024-01-01T00:00:00Z,0,300\n")
    report = replay_path(run, ruleset)
    assert [i.cause for i in report.incidents] == [Cause.ILLEGAL_MEMORY_ACCESS]


def test_a_json_lines_file_named_json_is_read_line_by_line(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = "".join(json.dumps({"time": f"2024-01-01T00:00:0{i}Z", "log": t}) + "\n" for i, t in enumerate(_TRACE))
    got = incidents_of(tmp_path, {"pod.json": lines}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]


def _kern(host: str, when: str, text: str) -> str:
    return f"{when} {host} kernel: {text}\n"


def test_a_link_down_long_before_another_node_s_own_failure_is_not_the_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {
        "node-086/kern.log": _kern("node-086", "2024-10-29T12:44:24", "mlx5_core 0000:a1:00.1 enp183s0f1np1: Link down"),
        "node-085/rank3.log": "".join(f"2024-10-29T13:08:1{i} {t}\n" for i, t in enumerate(_TRACE))}, ruleset)
    assert [(g.cause, g.rank, g.drain) for g in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3, False)]
    assert not any(g.drain for g in got)


def test_a_link_down_that_ranks_saw_as_network_errors_stays_the_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {
        "node-086/kern.log": _kern("node-086", "2024-10-29T12:44:24", "mlx5_core 0000:a1:00.1 ib0: Link down"),
        "node-086/rank8.log": (
            "2024-10-29T12:44:30 node-086:1234:1300 [0] NCCL INFO NET/IB : Got completion from peer 10.0.0.5<4312> "
            "with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.6 remoteGidsfe80::1\n"
            "2024-10-29T13:08:10 [rank8]: RuntimeError: CUDA error: an illegal memory access was encountered\n")},
        ruleset)
    assert got and got[0].cause is Cause.NETWORK


def test_kubectl_s_prefix_and_time_give_the_pod_the_rank_and_the_time(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"kubectl-logs.txt": "".join(
        f"[pod/llama-worker-1/pytorch] 2024-12-13T16:43:2{i}.425346375Z {t}\n" for i, t in enumerate(_TRACE))}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3, "llama-worker-1")]


def test_stern_s_pod_container_and_time_give_the_pod_and_the_time(tmp_path: Path, ruleset: RuleSet) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "stern.log").write_text("".join(
        f"llama-worker-1 pytorch 2024-12-13T16:43:2{i}.425346375Z {t}\n" for i, t in enumerate(_TRACE)))
    report = replay_path(run, ruleset)
    inc = report.incidents[0]
    assert (inc.cause, inc.initiator.rank, inc.initiator.node) == (Cause.ILLEGAL_MEMORY_ACCESS, 3, "llama-worker-1")
    assert inc.first_evidence_time is not None and inc.first_evidence_time.isoformat().startswith("2024-12-13T16:43:2")


def test_an_oom_kill_of_a_node_service_a_day_before_the_job_failed_is_not_its_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {
        "node-5/kern.log": _kern("node-5", "2024-12-11T21:13:46", "Out of memory: Killed process 11450 (node_exporter) "
                                 "total-vm:812344kB, anon-rss:2212kB, file-rss:0kB, shmem-rss:0kB"),
        "node-5/rank3.log": "".join(f"2024-12-13T16:43:2{i} {t}\n" for i, t in enumerate(_TRACE))}, ruleset)
    assert [g.cause for g in got] == [Cause.ILLEGAL_MEMORY_ACCESS]


def test_an_oom_kill_of_a_trainer_stays_the_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {
        "node-5/kern.log": _kern("node-5", "2024-12-13T16:43:20", "Out of memory: Killed process 11450 (pt_main_thread) "
                                 "total-vm:812344kB, anon-rss:99212kB, file-rss:0kB, shmem-rss:0kB"),
        "node-5/rank3.log": "2024-12-13T16:53:20 [rank3]: [E ProcessGroupNCCL.cpp:1] [Rank 3] Watchdog caught collective "
                            "operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                            "Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n"}, ruleset)
    assert got and got[0].cause is Cause.HOST_OOM_KILL


def test_a_link_down_hours_before_the_ranks_errors_is_not_their_cause(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {
        "node-112/kern.log": _kern("node-112", "2024-03-19T01:33:21", "mlx5_core 0000:a1:00.1 enp20s0f1np1: Link down"),
        "node-106/rank9.log": "2024-03-20T12:47:31 [rank9]: [E ProcessGroupNCCL.cpp:1418] [Rank 9] NCCL watchdog thread "
                              "terminated with exception: NCCL error: remote process exited or there was a network error, "
                              "NCCL version 2.20.5\n"}, ruleset)
    assert not any(g.drain for g in got)
    assert not any(g.node == "node-112" for g in got)
