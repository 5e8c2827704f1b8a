"""The fuzz targets of the parsers of outside text, their seeds and input strategies (no tests
here): each target is a plain ``target(data: bytes) -> None`` that raises only on a bug, run by
tests/reliability/test_reliability_fuzz.py under hypothesis and by
``bench/bench_reliability.py fuzz`` under hypothesis and atheris."""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
from collections.abc import Callable
from datetime import UTC
from pathlib import Path

from hypothesis import strategies as st

from detector.errors import ConfigError, InputError
from detector.remediation.config import parse_remediation
from detector.remediation.incidentfile import parse_incident_document
from detector.replay import replay_path
from detector.rules.compile import load_ruleset
from detector.rules.engine import RuleSet
from detector.rules.loader import load_rules
from detector.sidecar.config import parse_config
from detector.sidecar.sources.kernel import parse_record
from detector.sources.metrics import parse_metrics_text
from detector.sources.pci import nccl_busid_to_pci, normalize_pci
from detector.sources.prefixes import PrefixStyle, detect_style, strip_prefix
from detector.sources.timestamps import find_year, parse_timestamp
from detector.support.yamlfile import loads_yaml
from detector.types import StreamKind
from tests.support.paths import ROOT

_PCI = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}$")

_RULES: RuleSet | None = None


def rules() -> RuleSet:
    """The shipped rules, loaded once per process (the targets run thousands of times)."""
    global _RULES
    if _RULES is None:
        _RULES = load_ruleset()
    return _RULES


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


# --- targets -------------------------------------------------------------------------------


def fuzz_timestamps(data: bytes) -> None:
    text = _text(data)
    pos = data[0] % (len(text) + 1) if data else 0
    for year in (None, 2026):
        stamp = parse_timestamp(text, year=year, pos=pos)
        if stamp is None:
            continue
        assert pos < stamp.end <= len(text), (text, stamp)
        assert (stamp.time is None) != (stamp.since_boot is None), stamp
        if stamp.time is not None:
            assert stamp.time.tzinfo is not None
            stamp.time.astimezone(UTC)  # representable in UTC (no overflow further down)
        if stamp.since_boot is not None:
            assert 0 <= stamp.since_boot < 1e13
    year_found = find_year(text)
    assert year_found is None or 2000 <= year_found <= 2099


def fuzz_prefixes(data: bytes) -> None:
    text = _text(data)
    for style in PrefixStyle:
        pre = strip_prefix(text, style)
        assert text.endswith(pre.message)
        assert pre.rank is None or pre.rank >= 0
        assert pre.local_rank is None or pre.local_rank >= 0
    detect_style(text.splitlines())


def fuzz_pci(data: bytes) -> None:
    text = _text(data)
    for fn in (normalize_pci, nccl_busid_to_pci):
        out = fn(text)
        if out is not None:
            assert _PCI.match(out), (text, out)
            assert normalize_pci(out) == out  # idempotent
    # NCCL prints busId as the hex of the PCI id: the round trip must hold for valid ids
    if len(data) >= 3:
        bus, dev, fn_ = data[0], data[1] % 32, data[2] % 8
        assert nccl_busid_to_pci(f"{bus:02x}{dev:02x}{fn_:x}"[:-1] + "0") is not None


def fuzz_rule_lines(data: bytes) -> None:
    """Xid, NCCL, CUDA, torch ... lines through every rule of both stream kinds."""
    text = _text(data)
    for kind in (StreamKind.KERNEL, StreamKind.RANK_LOG):
        for m in rules().match(text, kind):
            for name, value in m.fields:
                assert isinstance(name, str) and isinstance(value, str)
                if name in ("pci", "busid"):
                    normalize_pci(value)


def _replay_dir(files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory(prefix="rd-fuzz-") as tmp:
        root = Path(tmp)
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        try:
            report = replay_path(root, rules())
        except InputError:
            return  # nothing readable: refused with its own error
        for incident in report.incidents:
            assert 0.0 <= incident.confidence <= 1.0
            json.dumps(incident.explanation)


GOOD_RANK = (b"[rank1]: 2026-11-29T12:00:00Z NCCL INFO comm 0x55d0c8a0 rank 1 nranks 2 cudaDev 1 busId 5e000 - Init COMPLETE\n"
              b"[rank1]: 2026-11-29T12:00:01Z step 10 | loss 2.1\n")


def fuzz_rank_log(data: bytes) -> None:
    """A rank log (NCCL lines, exceptions, step lines, torchelastic summaries) replayed."""
    _replay_dir({"node01/rank_0.log": data, "node01/rank_1.log": GOOD_RANK})


def fuzz_kernel_log(data: bytes) -> None:
    """A kernel log (dmesg, dmesg -T, syslog, journald, /dev/kmsg records) replayed."""
    _replay_dir({"node01/dmesg.log": data, "node01/rank_1.log": GOOD_RANK})


def fuzz_kmsg_record(data: bytes) -> None:
    """One /dev/kmsg record as the live kernel source splits it, then as a kernel line."""
    seq, line = parse_record(data)
    assert seq is None or seq >= 0
    assert b"\n" not in line
    fuzz_rule_lines(line)
    parse_timestamp(_text(line))


def fuzz_elastic_error(data: bytes) -> None:
    """A torchelastic error.json next to the rank's logs."""
    _replay_dir({"job/attempt_0/0/error.json": data, "job/attempt_0/0/stderr.log": GOOD_RANK})


def fuzz_prometheus_answer(data: bytes) -> None:
    """A Prometheus HTTP API answer (or CSV export) as a metrics input."""
    try:
        series = parse_metrics_text(_text(data))
    except InputError:
        return
    for s in series:
        assert len(s.times) == len(s.values)


def fuzz_yaml(data: bytes) -> None:
    with contextlib.suppress(ConfigError):
        loads_yaml(_text(data), "fuzz.yaml")


def fuzz_rule_file(data: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="rd-fuzz-") as tmp:
        path = Path(tmp) / "site.yaml"
        path.write_bytes(data)
        result = load_rules([], [path])  # never raises: problems are collected
        for problem in result.problems:
            assert problem.format()
        if not result.problems and result.rules:
            RuleSet(result.rules, engine="re")  # (hyperscan's compile is the slow part; same checks)


def fuzz_config_file(data: bytes) -> None:
    """The sidecar's config file, with its remediation section."""
    with tempfile.TemporaryDirectory(prefix="rd-fuzz-") as tmp:
        try:
            doc = loads_yaml(_text(data), "config.yaml")
            cfg = parse_config(doc, "config.yaml", base_dir=Path(tmp), environ={})
            if cfg.remediation is not None:
                section = dict(cfg.remediation)
                section["state_dir"] = tmp
                parse_remediation(section, "config.yaml", base_dir=Path(tmp), environ={})
        except ConfigError:
            return


def fuzz_incident_file(data: bytes) -> None:
    try:
        incident = parse_incident_document(_text(data), "incident.json")
    except InputError:
        return
    assert 0.0 <= incident.confidence <= 1.0


TARGETS: dict[str, Callable[[bytes], None]] = {
    "timestamps": fuzz_timestamps,
    "prefixes": fuzz_prefixes,
    "pci": fuzz_pci,
    "rule_lines": fuzz_rule_lines,
    "rank_log": fuzz_rank_log,
    "kernel_log": fuzz_kernel_log,
    "kmsg_record": fuzz_kmsg_record,
    "elastic_error": fuzz_elastic_error,
    "prometheus_answer": fuzz_prometheus_answer,
    "yaml": fuzz_yaml,
    "rule_file": fuzz_rule_file,
    "config_file": fuzz_config_file,
    "incident_file": fuzz_incident_file,
}

# --- seeds: valid inputs of each kind, for structured mutation (and atheris' corpus) --------

_STAMPS = ["2026-11-29T12:00:01.123Z ", "2026-11-29 12:00:01,123 ", "E1130 17:40:34.227531 ", "[  28.733734] ",
           "[Sun Feb 23 16:24:18 2025] ", "Nov 29 12:00:01 node01 kernel: ", "2026-11-29T12:00:01+0000 node01 kernel: ",
           "6,1234,28733734,-;", "2026-06-08_19:04:45 "]
_PREFIXES = ["[rank3]:", "[default1]:", "[default0]:[rank12]:", "3: ", "[rank=5] || ", "[rank1]:[E1130 17:40:34.227531 ProcessGroupNCCL.cpp:563] "]


def _example_lines() -> list[str]:
    out: list[str] = []
    for r in load_rules().rules:
        out.extend(line for line, _ in r.examples)
        out.extend(r.counterexamples)
    return out


def seeds() -> dict[str, list[bytes]]:
    lines = _example_lines()
    rule_file = (ROOT / "rules" / "xid.yaml").read_bytes()
    incident = {"id": "i-1", "cause": "gpu_hardware", "initiator": {"rank": 3, "node": "node02", "gpu": "0000:3b:00"},
                "collateral_ranks": [0, 1], "confidence": 0.9, "first_evidence_time": "2026-11-29T12:00:00+00:00",
                "explanation": "x", "evidence": [{"time": None, "file": "f", "line": 1, "rank": 3, "node": None,
                                                  "rule": "xid.fallen_off_bus", "role": "initiator", "text": "t"}],
                "remediation": {"drain_node": True, "resubmit": True, "fix": "", "verify": ""}}
    prom = {"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": "DCGM_FI_DEV_XID_ERRORS", "Hostname": "node01", "gpu": "0", "pci_bus_id": "00000000:3B:00.0"},
         "values": [[1764417600, "0"], [1764417615, "79"]]}]}}
    config = ("logs: [/tmp/logs]\nkmsg: /dev/kmsg\nprometheus: {url: 'http://127.0.0.1:9090', interval_s: 15}\n"
              "metrics_addr: 127.0.0.1:9108\nnode: node01\ndetection: {settle_s: 0.5}\nremediation:\n"
              "  hooks:\n    - type: command\n      argv: [/bin/echo, '{node}']\n")
    elastic = {"message": {"message": "RuntimeError: CUDA error: an illegal memory access was encountered",
                           "extraInfo": {"py_callstack": "Traceback ...", "timestamp": "1764417600"}}}
    text_seeds = [(s + p + line) for s, p, line in zip(_STAMPS * 40, _PREFIXES * 60, lines, strict=False)]
    return {
        "timestamps": [s.encode() for s in _STAMPS],
        "prefixes": [p.encode() + b"hello" for p in _PREFIXES],
        "pci": [b"0000:3b:00", b"00000000:3B:00.0", b"3b:00.0", b"3b000", b"1003b000", b"PCI:0000:3b:00"],
        "rule_lines": [line.encode() for line in lines],
        "rank_log": [("\n".join(text_seeds[i:i + 8]) + "\n").encode() for i in range(0, len(text_seeds), 8)],
        "kernel_log": [("\n".join(_STAMPS[i % len(_STAMPS)] + line for line in lines[i:i + 6]) + "\n").encode()
                       for i in range(0, len(lines), 6)],
        "kmsg_record": [b"3,1234,28733734,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n SUBSYSTEM=pci"],
        "elastic_error": [json.dumps(elastic).encode()],
        "prometheus_answer": [json.dumps(prom).encode(), b"timestamp,name,gpu,Hostname,value\n1764417600,DCGM_FI_DEV_GPU_TEMP,0,node01,40\n"],
        "yaml": [config.encode(), rule_file[:2000]],
        "rule_file": [rule_file],
        "config_file": [config.encode()],
        "incident_file": [json.dumps(incident).encode(), json.dumps({"incidents": [incident]}).encode()],
    }


# --- structured strategies: seeds mutated by the mutations that found bugs -----------------

_NASTY = ["\x00", "\ufffd", "\r", "\u202e", "\U0001f600", "٣", "\x1b[31m", "\x0b", "9" * 5000, "+99:00", "-2400",
          "9999-12-31T23:59:59", "0000-00-00T00:00:00", "[rank999999999]:", "NaN", "Infinity", "1e999", "-1",
          "&a", "*a", "!!int x", "!!timestamp x", "{", "[", "\t", "\n", "--", "$(id)", "`id`", ";"]


def _mutate(seed: str, edits: list[tuple[int, int, str]]) -> str:
    out = seed
    for where, kind, piece in edits:
        i = where % (len(out) + 1)
        if kind == 0:
            out = out[:i] + piece + out[i:]
        elif kind == 1:
            out = out[:i] + piece + out[i + len(piece):]
        elif kind == 2:
            out = out[:i]
        else:
            out = out[:i] + out[i:i + 40] * (1 + where % 50) + out[i + 40:]
    return out


def mutated(seed_list: list[bytes]) -> st.SearchStrategy[bytes]:
    edit = st.tuples(st.integers(0, 1 << 16), st.integers(0, 3), st.sampled_from(_NASTY) | st.text(max_size=12))
    return st.builds(lambda s, e: _mutate(s.decode("utf-8", "replace"), e).encode("utf-8", "surrogatepass"),
                     st.sampled_from(seed_list), st.lists(edit, max_size=5))


def inputs(name: str) -> st.SearchStrategy[bytes]:
    return st.binary(max_size=2048) | mutated(SEEDS[name])


SEEDS = seeds()
