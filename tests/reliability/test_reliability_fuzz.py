"""Malformed input, property-based: every parser of outside text gets arbitrary and mutated
input and must either give a well-formed result or refuse with its own error type
(InputError, ConfigError) -- never crash, never hang.

Each target (tests/support/fuzz.py) is a plain ``target(data: bytes) -> None`` that raises only
on a bug, so the same targets run here under hypothesis (a few hundred inputs each, deterministic) and in
``bench/bench_reliability.py fuzz`` under hypothesis with many more inputs and under atheris
(coverage-guided) where it installs. The regression cases at the end are the crashes these
targets found; each failed before its fix.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detector.errors import ConfigError, InputError
from detector.remediation.incidentfile import parse_incident_document
from detector.replay import replay_path
from detector.report.jsonfmt import incident_from_dict
from detector.sidecar.sources.kernel import parse_record
from detector.sources.metrics import parse_metrics_text
from detector.sources.timestamps import parse_timestamp
from detector.support.yamlfile import loads_yaml
from tests.support.fuzz import GOOD_RANK, SEEDS, TARGETS, inputs, rules

EXAMPLES = int(os.environ.get("RANKDOCTOR_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_parser_survives_malformed_input(name: str) -> None:
    target = TARGETS[name]
    for seed in SEEDS[name]:
        target(seed)  # the seeds themselves are fine

    @FUZZ
    @given(inputs(name))
    def run(data: bytes) -> None:
        target(data)

    run()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=30,
)
_KEYS = ["id", "cause", "initiator", "remediation", "confidence", "collateral_ranks", "evidence",
         "first_evidence_time", "rank", "node", "drain_node", "resubmit", "role", "text", "time", "line"]


@FUZZ
@given(st.dictionaries(st.sampled_from(_KEYS), _JSON, max_size=10))
def test_incident_from_arbitrary_json_objects(data: dict[str, object]) -> None:
    """Incident objects of the right keys and wrong shapes: InputError, never KeyError or
    TypeError (the remediation command reads incidents written by other processes)."""
    try:
        incident = incident_from_dict(data)
    except InputError:
        return
    assert 0.0 <= incident.confidence <= 1.0


# --- regressions: inputs that crashed a parser before its fix ------------------------------


@pytest.mark.parametrize("line", [
    "2026-11-29T12:00:01+99:00 RuntimeError: CUDA error: an illegal memory access was encountered",
    "2026-11-29T12:00:01-2400 x",
    "9999-12-31T23:59:59.999999-23:59 [rank0]: RuntimeError: x",
    "[" + "9" * 5000 + ".000001] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.",
    "6," + "9" * 5000 + ",1,-;NVRM: x",
])
def test_timestamp_regressions(line: str, tmp_path: Path) -> None:
    """An impossible zone offset (ValueError), a year that overflows later arithmetic
    (OverflowError in attribution) and a 5000-digit dmesg time (int() limit) used to crash
    the whole replay."""
    assert parse_timestamp(line, year=2026) is None  # not a time: the line inherits one
    (tmp_path / "rank_0.log").write_text(line + "\n")
    (tmp_path / "dmesg.log").write_text(line + "\n")
    replay_path(tmp_path, rules())


@pytest.mark.parametrize("text", ["a: !!timestamp foo", "a: !!int foo", "a: !!float x", "a: !!timestamp 2026-13-45",
                                  "[" * 5000 + "]" * 5000, "a:" + " [" * 70 + " ]" * 70])
def test_yaml_regressions(text: str) -> None:
    """AttributeError / ValueError from PyYAML's safe constructors and RecursionError from deep
    nesting escaped as crashes; now a ConfigError with the line."""
    with pytest.raises(ConfigError):
        loads_yaml(text, "x.yaml")


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, "1" * 5000,
                                  '{"data": {"result": [{"metric": {}, "values": [[' + "1" * 5000 + ', "1"]]}]}}'])
def test_json_regressions(text: str) -> None:
    """RecursionError and the int-digits ValueError escaped json.loads' JSONDecodeError handler."""
    with pytest.raises(InputError):
        parse_incident_document(text, "i.json")
    with pytest.raises(InputError):
        parse_metrics_text(text, where="m.json")


@pytest.mark.parametrize("confidence", ["NaN", "Infinity", "-0.5", "1e999", "9" * 400, "2"])
def test_incident_confidence_must_be_a_probability(confidence: str) -> None:
    """``"confidence": NaN`` passed the policy's ``confidence < min_confidence`` check (NaN
    compares false), so a forged incident file could drain a node at any minimum; a 400-digit
    integer crashed float()."""
    text = ('{"id": "a", "cause": "gpu_hardware", "initiator": {"node": "node01"}, "confidence": '
            + confidence + ', "remediation": {"drain_node": true}}')
    with pytest.raises(InputError):
        parse_incident_document(text, "i.json")


def test_policy_refuses_nan_confidence() -> None:
    from detector.remediation.policy import decide
    from detector.types import Cause, Incident, Initiator, Remediation

    incident = Incident(id="a", cause=Cause.GPU_HARDWARE, initiator=Initiator(node="node01"), collateral_ranks=(),
                        confidence=float("nan"), first_evidence_time=datetime(2026, 1, 1, tzinfo=UTC),
                        explanation="", evidence=(), remediation=Remediation(drain_node=True, resubmit=True, fix="", verify=""))
    assert not decide(incident, min_confidence=0.5).drain


def test_kmsg_record_with_a_huge_sequence_number() -> None:
    """Found by the kmsg fuzz target: int() refused 5,000 digits. Sequence numbers are u64."""
    seq, line = parse_record(b"6," + b"9" * 5000 + b",1,-;NVRM: x")
    assert seq is None and line.endswith(b"NVRM: x")
    assert parse_record(b"6,18446744073709551615,1,-;NVRM: x")[0] == 2**64 - 1


def test_elastic_error_with_a_huge_timestamp(tmp_path: Path) -> None:
    doc = {"message": {"message": "RuntimeError: x", "extraInfo": {"timestamp": "99999999999999999"}}}
    run = tmp_path / "run"
    for rel, content in {"job/attempt_0/0/error.json": json.dumps(doc).encode(), "job/attempt_0/0/stderr.log": GOOD_RANK}.items():
        (run / rel).parent.mkdir(parents=True, exist_ok=True)
        (run / rel).write_bytes(content)
    report = replay_path(run, rules())  # no crash, and the exception still counts, without a time
    assert [i.cause.value for i in report.incidents] == ["python_exception"]
    from_file = [e for e in report.incidents[0].evidence if e.file and e.file.endswith("error.json")]
    assert from_file and from_file[0].time is None
