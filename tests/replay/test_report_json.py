"""The JSON report contract both ways: report_to_dict -> json -> incident_from_dict."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from detector.errors import InputError
from detector.report.jsonfmt import SCHEMA, dumps_report, incident_from_dict, report_to_dict
from detector.types import (
    Cause,
    Finding,
    Incident,
    Initiator,
    Remediation,
    Report,
    Role,
    Severity,
    Summary,
)

T0 = datetime(2026, 11, 29, 12, 0, 1, 123456, tzinfo=UTC)


def sample_report() -> Report:
    evidence = (
        Finding(
            rule="xid.fallen_off_bus",
            role=Role.INITIATOR,
            cause=Cause.GPU_HARDWARE,
            severity=Severity.CRITICAL,
            text="NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus. — Größe 日本",
            file="run/node02/dmesg.log",
            line=1207,
            time=T0,
            rank=3,
            node="node02",
        ),
        Finding(
            rule="nccl.watchdog_timeout",
            role=Role.COLLATERAL,
            cause=None,
            severity=Severity.ERROR,
            text='[rank0]:[E1129] <script>"x"</script>',
            file="run/attempt_0/0/stderr.log",
            line=412,
            time=T0 + timedelta(seconds=600),
            rank=0,
            node="node01",
        ),
        Finding(rule="k.ctx", role=Role.CONTEXT, cause=None, severity=Severity.INFO, text=""),
    )
    hw = Incident(
        id="gpu_hardware-node02-3",
        cause=Cause.GPU_HARDWARE,
        initiator=Initiator(rank=3, local_rank=3, node="node02", gpu="0000:2b:00", pid=4821),
        collateral_ranks=(0, 1, 2, 4, 5),
        confidence=0.95,
        first_evidence_time=T0,
        explanation="GPU fell off the bus.",
        evidence=evidence,
        remediation=Remediation(drain_node=True, resubmit=True, fix="reboot", verify="ssh node02 nvidia-smi"),
    )
    unknown = Incident(
        id="unknown-1",
        cause=Cause.UNKNOWN,
        initiator=Initiator(),
        collateral_ranks=(),
        confidence=0.0,
        first_evidence_time=None,
        explanation="",
        evidence=(),
        remediation=Remediation(drain_node=False, resubmit=False, fix="", verify=""),
    )
    return Report(
        source="replay_logs/xid79",
        summary=Summary(files=3, lines=10, ranks=6, nodes=2, start=T0, end=None),
        incidents=(hw, unknown),
        warnings=("a.txt: skipped",),
    )


def key_fields(incident: Incident) -> tuple[Any, ...]:
    return (
        incident.id,
        incident.cause,
        incident.initiator,
        incident.collateral_ranks,
        round(incident.confidence, 3),
        incident.first_evidence_time,
        incident.explanation,
        incident.remediation,
        tuple((f.time, f.file, f.line, f.rank, f.node, f.rule, f.role, f.text) for f in incident.evidence),
    )


def test_round_trip_keeps_key_fields() -> None:
    report = sample_report()
    data = json.loads(json.dumps(report_to_dict(report)))
    assert data["schema"] == SCHEMA
    assert data["summary"]["end"] is None
    back = [incident_from_dict(d, f"incidents[{i}]") for i, d in enumerate(data["incidents"])]
    assert [key_fields(i) for i in back] == [key_fields(i) for i in report.incidents]
    assert back[0].evidence[0].time == T0  # microseconds and the UTC offset survive


def test_dumps_report_keeps_non_ascii_and_is_valid_json() -> None:
    text = dumps_report(sample_report())
    assert "Größe 日本" in text
    assert json.loads(text)["incidents"][0]["initiator"]["gpu"] == "0000:2b:00"


def test_contract_keys() -> None:
    data = report_to_dict(sample_report())
    assert set(data) >= {"schema", "source", "summary", "incidents", "warnings"}
    inc = data["incidents"][0]
    assert set(inc) >= {
        "id",
        "cause",
        "initiator",
        "collateral_ranks",
        "confidence",
        "first_evidence_time",
        "explanation",
        "evidence",
        "remediation",
    }
    assert set(inc["evidence"][0]) >= {"time", "file", "line", "rank", "node", "rule", "role", "text"}
    assert set(inc["remediation"]) == {"drain_node", "resubmit", "fix", "verify"}
    assert data["incidents"][1]["initiator"] == {
        "rank": None,
        "local_rank": None,
        "node": None,
        "gpu": None,
        "pid": None,
    }


def good() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(report_to_dict(sample_report())))["incidents"][0]
    return data


def with_(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    data = good()
    target: Any = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return data


def without(key: str) -> dict[str, Any]:
    data = good()
    del data[key]
    return data


MALFORMED: list[tuple[str, Any]] = [
    ("null", None),
    ("list", []),
    ("string", "gpu_hardware"),
    ("number", 3),
    ("empty object", {}),
    ("no id", without("id")),
    ("no cause", without("cause")),
    ("no initiator", without("initiator")),
    ("no remediation", without("remediation")),
    ("id not a string", with_(("id",), 7)),
    ("empty id", with_(("id",), "")),
    ("unknown cause", with_(("cause",), "gremlins")),
    ("cause null", with_(("cause",), None)),
    ("cause a list", with_(("cause",), ["gpu_hardware"])),
    ("cause an object", with_(("cause",), {"a": 1})),
    ("initiator a string", with_(("initiator",), "rank 3")),
    ("initiator rank a string", with_(("initiator", "rank"), "3")),
    ("initiator rank a bool", with_(("initiator", "rank"), True)),
    ("initiator rank a float", with_(("initiator", "rank"), 3.5)),
    ("initiator node a number", with_(("initiator", "node"), 2)),
    ("initiator gpu a list", with_(("initiator", "gpu"), ["0000:2b:00"])),
    ("remediation a list", with_(("remediation",), [])),
    ("collateral a string", with_(("collateral_ranks",), "0-2")),
    ("collateral with a string", with_(("collateral_ranks",), [1, "2"])),
    ("collateral with a bool", with_(("collateral_ranks",), [True])),
    ("collateral with null", with_(("collateral_ranks",), [None])),
    ("confidence a string", with_(("confidence",), "high")),
    ("confidence a bool", with_(("confidence",), True)),
    ("confidence null", with_(("confidence",), None)),
    ("first time not ISO", with_(("first_evidence_time",), "yesterday")),
    ("first time a number", with_(("first_evidence_time",), 1764417601)),
    ("evidence an object", with_(("evidence",), {"text": "x"})),
    ("evidence entry a number", with_(("evidence",), [1])),
    ("evidence entry null", with_(("evidence",), [None])),
    ("evidence text missing", with_(("evidence", 0), {"rule": "r", "role": "initiator"})),
    ("evidence text null", with_(("evidence", 0, "text"), None)),
    ("evidence role unknown", with_(("evidence", 0, "role"), "boss")),
    ("evidence role a list", with_(("evidence", 0, "role"), [])),
    ("evidence time bad", with_(("evidence", 0, "time"), "12:00 yesterday")),
    ("evidence time offset out of range", with_(("evidence", 0, "time"), "2026-11-29T12:00:00+25:00")),
    ("evidence line a string", with_(("evidence", 0, "line"), "12")),
    ("evidence rank a float", with_(("evidence", 0, "rank"), 1.0)),
    ("evidence file a number", with_(("evidence", 0, "file"), 5)),
    ("evidence node an object", with_(("evidence", 0, "node"), {"name": "n"})),
]


@pytest.mark.parametrize(("name", "data"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_incident_raises_input_error(name: str, data: Any) -> None:
    with pytest.raises(InputError) as info:
        incident_from_dict(data, "incidents[0]")
    assert str(info.value).startswith("incidents[0]")


def test_the_good_incident_parses() -> None:
    assert incident_from_dict(good()).id == "gpu_hardware-node02-3"


def test_remediation_flags_must_be_booleans() -> None:
    with pytest.raises(InputError):
        incident_from_dict(with_(("remediation", "drain_node"), "false"))
