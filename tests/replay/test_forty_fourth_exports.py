"""The forty-fourth session's log exports: gcloud logging read's default YAML entries, and a
Splunk search's CSV and JSON exports (the event in _raw, its time in _time)."""

from __future__ import annotations

import json
from pathlib import Path

from detector.rules.engine import RuleSet
from detector.support.exports import looks_like_jsonl_export, looks_like_yaml_export
from detector.types import Cause
from tests.support.replaying import incidents_of

_TRACE = [
    "[rank3]: Traceback (most recent call last):",
    '[rank3]:   File "train.py", line 88, in <module>',
    "[rank3]:     loss = model(batch)",
    "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered",
]


def _yaml_entry(i: int, line: str) -> str:
    return "\n".join([
        f"insertId: lb4jknwq76tvh{i:03d}",
        "labels:",
        "  compute.googleapis.com/resource_name: gke-research-a3-gpu-pool-a3-737c3f7d-rzmn",
        "logName: projects/llm-research/logs/stderr",
        'receiveTimestamp: "2026-02-08T14:38:01.579980000Z"',
        "resource:",
        "  labels:",
        "    pod_name: olmo-1b-repro-2f42-worker-0",
        "  type: k8s_container",
        "severity: ERROR",
        f"textPayload: {json.dumps(line)}",
        f'timestamp: "2026-02-08T14:37:{10 + i:02d}.744588000Z"',
    ])


def test_gcloud_logging_read_yaml_entries_are_diagnosed(tmp_path: Path, ruleset: RuleSet) -> None:
    # gcloud logging read's default format, newest first, "---" between entries
    text = "\n---\n".join(_yaml_entry(i, line) for i, line in reversed(list(enumerate(_TRACE)))) + "\n"
    got = incidents_of(tmp_path, {"gcloud_logging_read.yaml": text}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3, "gke-research-a3-gpu-pool-a3-737c3f7d-rzmn")]


def test_a_config_yaml_beside_the_logs_is_no_export(tmp_path: Path, ruleset: RuleSet) -> None:
    assert not looks_like_yaml_export(b"trainer:\n  devices: 8\nmodel:\n  text: hello\n")
    files = {"config.yaml": "trainer:\n  devices: 8\nlogName: x\ntextPayload: RuntimeError: not a log\n"[:40],
             "train.log": "step 10 loss 2.0\n"}
    assert not incidents_of(tmp_path, files, ruleset)


def test_a_broken_yaml_export_keeps_the_entries_before_the_break(tmp_path: Path, ruleset: RuleSet) -> None:
    entries = [_yaml_entry(i, line) for i, line in enumerate(_TRACE)]
    text = "\n---\n".join(entries) + "\n---\ninsertId: [unclosed\n"
    got = incidents_of(tmp_path, {"gcloud_logging_read.yaml": text}, ruleset)
    assert [g.cause for g in got] == [Cause.ILLEGAL_MEMORY_ACCESS]


def test_a_splunk_csv_export_is_diagnosed(tmp_path: Path, ruleset: RuleSet) -> None:
    rows = ['"_raw","_time","host","index","linecount","source","sourcetype","splunk_server"']
    for i, line in reversed(list(enumerate(_TRACE))):
        raw = line.replace('"', '""')
        rows.append(f'"{raw}","2026-02-09T14:52:{10 + i:02d}.464+00:00","g212","main","1",'
                    '"/lustre/runs/slurm-2357565.out","slurm_job_output","idx01"')
    got = incidents_of(tmp_path, {"splunk_search_export.csv": "\n".join(rows) + "\n"}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3, "g212")]


def test_a_splunk_json_export_is_diagnosed(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [json.dumps({"preview": False, "offset": i, "result": {
        "_raw": line, "_time": f"2026-02-09T14:52:{10 + i:02d}.464+00:00", "host": "g212"}})
        for i, line in enumerate(_TRACE)]
    got = incidents_of(tmp_path, {"splunk_export.json": "\n".join(lines) + "\n"}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]


def test_a_yaml_file_with_anchors_is_not_expanded(tmp_path: Path, ruleset: RuleSet) -> None:
    # a few lines of aliases that would nest into gigabytes: no export read, the run still replays
    bomb = ["insertId: a", "logName: projects/x/logs/stderr", 'a: &a ["lol","lol","lol","lol","lol","lol","lol"]']
    bomb += [f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]" for i in range(9)]
    bomb += ["textPayload: *j", 'timestamp: "2026-02-08T14:37:10Z"']
    files = {"gcloud_logging_read.yaml": "\n".join(bomb) + "\n", "train.log": "\n".join(_TRACE) + "\n"}
    got = incidents_of(tmp_path, files, ruleset)
    assert [g.cause for g in got] == [Cause.ILLEGAL_MEMORY_ACCESS]


def _ds_step(t: str, step: int) -> str:
    return f"[2026-02-01 {t},866] [INFO] [logging.py:128:log_dist] [Rank 0] step={step}, skipped=3, lr=[0.00030100]"


def _merged_export() -> str:
    # a Datadog download of every service of the job, newest first: rank 0's checkpoint uploader
    # caught a read timeout and retried; training went on for fifteen minutes; then rank 2's GPU
    # reported an uncorrectable ECC error and the job died
    rows = []
    caught = ["Traceback (most recent call last):",
              '  File "/opt/conda/lib/python3.12/site-packages/urllib3/connection.py", line 507, in getresponse',
              "TimeoutError: The read operation timed out",
              "WARNING:checkpoint_uploader:upload of step checkpoint shard 3/16 failed (ReadTimeoutError), retrying in 30s"]
    rows += [("2026-02-01T11:51:39.224Z", "hgx-134", line) for line in caught]
    for i in range(24):
        minute, second = divmod(45 + i * 39, 60)
        t = f"{11 + (51 + minute) // 60:02d}:{(51 + minute) % 60:02d}:{second:02d}"
        rows.append((f"2026-02-01T{t}.866Z", "hgx-134", _ds_step(t, 2078 + 12 * i)))
    rows += [("2026-02-01T12:06:23.970Z", "hgx-134",
              "NVRM: Xid (PCI:0000:47:00): 95, pid=15757, name=pt_main_thread, Uncontained: FBHUB. RST: Yes, D-RST: No"),
             ("2026-02-01T12:06:24.561Z", "hgx-134", "[rank2]: RuntimeError: CUDA error: uncorrectable ECC error encountered")]
    out = ['"Date","Host","Service","Message"']
    out += [f'"{when}","{host}","train","{text.replace(chr(34), chr(34) * 2)}"' for when, host, text in reversed(rows)]
    return "\n".join(out) + "\n"


def test_an_exception_the_job_trained_on_after_is_not_the_merged_export_s_failure(tmp_path: Path, ruleset: RuleSet) -> None:
    got = incidents_of(tmp_path, {"datadog_logs_export.csv": _merged_export()}, ruleset)
    assert got and got[0].cause is Cause.ECC_MEMORY and got[0].rank == 2, got


def test_steps_stamped_before_the_exception_do_not_make_it_caught(tmp_path: Path, ruleset: RuleSet) -> None:
    # rank 0's own exception; the step lines after its traceback carry stamps from before it (its
    # buffered stdout, flushed as it exited), then the launcher reports its exit: the failure
    rows = [("2026-02-01T11:51:39.224Z", "Traceback (most recent call last):"),
            ("2026-02-01T11:51:39.224Z", '  File "train.py", line 99, in train'),
            ("2026-02-01T11:51:39.224Z", "ValueError: sample 88123 has no tokens")]
    rows += [("2026-02-01T11:51:40.100Z", _ds_step(f"11:{30 + i // 2:02d}:{(i % 2) * 30:02d}", 2078 + 12 * i))
             for i in range(24)]
    rows.append(("2026-02-01T11:51:41.000Z", "ERROR:torch.distributed.elastic.multiprocessing.api:failed "
                 "(exitcode: 1) local_rank: 0 (pid: 15757) of binary: /usr/bin/python3"))
    out = ['"Date","Host","Service","Message"']
    out += [f'"{when}","hgx-134","train","{text.replace(chr(34), chr(34) * 2)}"' for when, text in reversed(rows)]
    got = incidents_of(tmp_path, {"datadog_logs_export.csv": "\n".join(out) + "\n"}, ruleset)
    assert got and got[0].cause is Cause.PYTHON_EXCEPTION, got


def test_an_elasticsearch_ndjson_dump_is_read_as_its_documents(tmp_path: Path, ruleset: RuleSet) -> None:
    # elasticdump's documents, in the index's order: the record under "_source", its host an object
    docs = [json.dumps({"_index": ".ds-logs-default", "_id": f"id{i}", "_score": 1, "_source": {
        "@timestamp": f"2026-02-16T18:58:{10 + i:02d}.680Z", "message": line,
        "host": {"name": "hgx-361", "hostname": "hgx-361"}}}) for i, line in enumerate(_TRACE)]
    order = [docs[2], docs[0], docs[3], docs[1]]
    got = incidents_of(tmp_path, {"elasticsearch_export.ndjson": "\n".join(order) + "\n"}, ruleset)
    assert [(g.cause, g.rank, g.node) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3, "hgx-361")]


def test_logcli_jsonl_newest_first_is_read_oldest_first(tmp_path: Path, ruleset: RuleSet) -> None:
    # logcli query -o jsonl: the query's URL, then records newest first; the caught exception of
    # the checkpoint uploader came long before the failure, training went on between
    labels = {"container": "pytorch", "namespace": "research", "node_name": "hgx-184", "pod": "moe-master-0"}
    records = [("2026-02-04T06:42:39.072Z", "TimeoutError: The read operation timed out"),
               ("2026-02-04T06:42:39.073Z", "WARNING:checkpoint_uploader:upload failed (ReadTimeoutError), retrying in 30s")]
    records += [(f"2026-02-04T{7 + (i * 3) // 60:02d}:{(i * 3) % 60:02d}:00.000Z",
                 f"{{'loss': 1.{i:02d}, 'grad_norm': 0.5, 'learning_rate': 2e-05, 'epoch': 0.{i:02d}}}") for i in range(30)]
    records += [(f"2026-02-04T08:30:{i:02d}.000Z", line) for i, line in enumerate(_TRACE)]
    lines = ["http://loki-gateway/loki/api/v1/query_range?direction=BACKWARD&limit=10000"]
    lines += [json.dumps({"labels": labels, "line": text, "timestamp": when}) for when, text in reversed(records)]
    got = incidents_of(tmp_path, {"loki_moe.jsonl": "\n".join(lines) + "\n"}, ruleset)
    assert got and (got[0].cause, got[0].rank) == (Cause.ILLEGAL_MEMORY_ACCESS, 3), got


def test_a_logger_s_json_lines_oldest_first_are_still_read_line_by_line(tmp_path: Path, ruleset: RuleSet) -> None:
    lines = [json.dumps({"time": f"2026-02-04T08:30:{i:02d}Z", "level": "ERROR", "msg": line}) for i, line in enumerate(_TRACE)]
    assert not looks_like_jsonl_export(
        ("\n".join(lines) + "\n").encode())
    got = incidents_of(tmp_path, {"train.jsonl": "\n".join(lines) + "\n"}, ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]


def test_logcli_s_default_output_names_the_host_of_its_labels(tmp_path: Path, ruleset: RuleSet) -> None:
    # logcli query -o default: each line "TIME {labels} line"; the node's journal names its host
    journal = ('2026-01-30T00:18:51Z {host="gn113", syslog_identifier="kernel", transport="kernel"} '
               "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n")
    got = incidents_of(tmp_path, {"loki_node_journal.log": journal}, ruleset)
    assert got and (got[0].cause, got[0].node) == (Cause.GPU_HARDWARE, "gn113"), got
    train = "\n".join(f'2026-01-30T00:18:{10 + i:02d}Z {{container="pytorch", pod="pretrain-7b-worker-1"}} {line}'
                      for i, line in enumerate(_TRACE)) + "\n"
    got = incidents_of(tmp_path / "b", {"loki_pretrain.log": train}, ruleset)
    assert got and (got[0].cause, got[0].rank, got[0].node) == (Cause.ILLEGAL_MEMORY_ACCESS, 3, "pretrain-7b-worker-1"), got
