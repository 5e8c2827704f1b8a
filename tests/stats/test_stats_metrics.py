"""Prometheus JSON and CSV metric exports (detector.sources.metrics)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from detector.errors import InputError
from detector.sources.metric_samples import DCGM_BLANK_MIN
from detector.sources.metrics import (
    MetricSeries,
    load_metrics,
    merge_series,
    parse_metrics_csv,
    parse_metrics_text,
    parse_prometheus_json,
)

MATRIX = {
    "status": "success",
    "data": {
        "resultType": "matrix",
        "result": [
            {
                "metric": {
                    "__name__": "DCGM_FI_DEV_SM_CLOCK",
                    "gpu": "3",
                    "UUID": "GPU-604ac76c",
                    "pci_bus_id": "00000000:3B:00.0",
                    "device": "nvidia3",
                    "modelName": "NVIDIA H100 80GB HBM3",
                    "Hostname": "node-17",
                },
                "values": [
                    [1796002755.986, "1980"],
                    [1796002785.986, "9223372036854775794"],
                    [1796002815, "NaN"],
                    [1796002845, "1410"],
                ],
            }
        ],
    },
}


def test_range_query() -> None:
    [series] = parse_prometheus_json(json.dumps(MATRIX))
    assert series.name == "DCGM_FI_DEV_SM_CLOCK"
    assert (series.host, series.gpu_index, series.pci, series.uuid, series.model) == (
        "node-17",
        3,
        "0000:3b:00",
        "GPU-604ac76c",
        "NVIDIA H100 80GB HBM3",
    )
    assert series.values.tolist() == [1980.0, 1410.0]  # the sentinel and NaN are dropped
    assert series.times.tolist() == [1796002755.986, 1796002845.0]


def test_instant_query_data_object_and_bare_list() -> None:
    vector = {
        "resultType": "vector",
        "result": [
            {
                "metric": {"__name__": "DCGM_FI_DEV_GPU_TEMP", "hostname": "n1", "gpu": "0"},
                "value": [1796002755.1, "79"],
            }
        ],
    }
    for document in (vector, {"data": vector}, vector["result"]):
        [series] = parse_prometheus_json(json.dumps(document))
        assert (series.host, series.gpu_index, series.values.tolist()) == ("n1", 0, [79.0])


def test_instance_label_gives_a_host_without_port() -> None:
    s = MetricSeries("x", (("instance", "node3:9400"),), np.zeros(0), np.zeros(0))
    assert s.host == "node3"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not JSON"),
        (
            '{"status":"error","errorType":"bad_data","error":"parse error at char 4"}',
            "the query failed (bad_data): parse error at char 4",
        ),
        ('{"data": {"resultType": "scalar", "result": [1, "2"]}}', "a scalar result has no series"),
        ('{"foo": 1}', "no 'data.result'"),
        ('[{"metric": {}, "values": [[1, 2, 3]]}]', "not a [time, value] pair"),
        ('[{"metric": {}}]', "neither 'values' nor 'value'"),
        ('[{"metric": {}, "values": [["yesterday", "1"]]}]', "bad sample time"),
        ("", "empty CSV"),
        ("a,b\n1,2\n", "no time column"),
        ("timestamp,gpu\n1,0\n", "no metric columns"),
        ("timestamp,name,value\n1796002755,x\n", ":2: 2 columns, the header has 3"),
        ("timestamp,name,value\nlater,x,1\n", ":2: cannot read the time 'later'"),
    ],
)
def test_malformed_input_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_metrics_text(text, where="m.json")
    assert message in str(caught.value)
    assert str(caught.value).startswith("m.json")


def test_long_csv() -> None:
    text = (
        "timestamp,name,gpu,Hostname,pci_bus_id,value\n"
        "1796002755,DCGM_FI_DEV_GPU_TEMP,0,n1,00000000:3B:00.0,65\n"
        "1796002785000,DCGM_FI_DEV_GPU_TEMP,0,n1,00000000:3B:00.0,66\n"  # milliseconds
        "2026-11-29T12:00:01Z,DCGM_FI_DEV_GPU_TEMP_CELSIUS,1,n1,00000000:3C:00.0,70\n"
        f"1796002815,DCGM_FI_DEV_MEMORY_TEMP,0,n1,00000000:3B:00.0,{DCGM_BLANK_MIN + 2}\n"
    )
    series = {s.name: s for s in parse_metrics_csv(text)}
    assert set(series) == {"DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_GPU_TEMP_CELSIUS"}
    temp = series["DCGM_FI_DEV_GPU_TEMP"]
    assert temp.times.tolist() == [1796002755.0, 1796002785.0]
    assert temp.pci == "0000:3b:00"
    iso = datetime(2026, 11, 29, 12, 0, 1, tzinfo=UTC).timestamp()
    assert series["DCGM_FI_DEV_GPU_TEMP_CELSIUS"].times.tolist() == [iso]


def test_wide_csv_and_nvidia_smi() -> None:
    wide = (
        "timestamp,hostname,gpu,DCGM_FI_DEV_SM_CLOCK,DCGM_FI_DEV_POWER_USAGE\n"
        "1796002755,n2,1,1980,650.5\n"
    )
    names = sorted(
        (s.name, s.host, s.gpu_index, s.values.tolist()[0]) for s in parse_metrics_csv(wide)
    )
    assert names == [
        ("DCGM_FI_DEV_POWER_USAGE", "n2", 1, 650.5),
        ("DCGM_FI_DEV_SM_CLOCK", "n2", 1, 1980.0),
    ]
    smi = (
        "timestamp, name, index, pci.bus_id, clocks.sm [MHz], power.draw [W], "
        "clocks_event_reasons.active\n"
        "2026/11/30 12:00:01.123, NVIDIA H200, 0, 00000000:00:06.0, 1980 MHz, 300.50 W, "
        "0x0000000000000004\n"
        "2026/11/30 12:00:02.123, NVIDIA H200, 0, 00000000:00:06.0, [N/A], 301.50 W, "
        "0x0000000000000000\n"
    )
    series = {s.name: s for s in parse_metrics_csv(smi)}
    assert series["clocks.sm"].values.tolist() == [1980.0]
    assert series["power.draw"].values.tolist() == [300.5, 301.5]
    assert series["clocks_event_reasons.active"].values.tolist() == [4.0, 0.0]
    assert (
        series["power.draw"].gpu_index,
        series["power.draw"].pci,
        series["power.draw"].model,
    ) == (0, "0000:00:06", "NVIDIA H200")


def test_nvidia_smi_csv_below_its_command_line() -> None:
    # the monitor's output saved with the command it ran on top (a comment); a bad row's
    # number is still the file's
    smi = (
        "# nvidia-smi --query-gpu=timestamp,index,clocks.sm --format=csv -l 10\n"
        "timestamp, index, clocks.sm [MHz]\n"
        "2025/01/15 09:32:06.624, 0, 861 MHz\n"
        "2025/01/15 09:32:16.624, 0, 855 MHz\n"
    )
    series = {s.name: s for s in parse_metrics_csv(smi)}
    assert series["clocks.sm"].values.tolist() == [861.0, 855.0]
    bad = "\n".join(smi.splitlines()[:3]) + "\n2025/01/15 09:32:16.624, 0\n"
    with pytest.raises(InputError, match=r":4: 2 columns"):
        list(parse_metrics_csv(bad))
    # blank lines above and among the rows still count
    lines = smi.splitlines()
    spaced = "\n".join([lines[0], "", lines[1], lines[2], "", "2025/01/15 09:32:16.624, 0"]) + "\n"
    with pytest.raises(InputError, match=r":6: 2 columns"):
        list(parse_metrics_csv(spaced))


def test_load_and_merge(tmp_path: pytest.TempPathFactory) -> None:
    a = tmp_path / "a.json"  # type: ignore[operator]
    b = tmp_path / "b.csv"  # type: ignore[operator]
    a.write_text(json.dumps(MATRIX))
    b.write_text(
        "timestamp,__name__,gpu,UUID,pci_bus_id,device,modelName,Hostname,value\n"
        "1796002900,DCGM_FI_DEV_SM_CLOCK,3,GPU-604ac76c,00000000:3B:00.0,nvidia3,"
        "NVIDIA H100 80GB HBM3,node-17,1500\n"
    )
    merged = merge_series(load_metrics(a) + load_metrics(b))
    assert len(merged) == 1
    assert merged[0].values.tolist() == [1980.0, 1410.0, 1500.0]
    bad = tmp_path / "c.csv"  # type: ignore[operator]
    bad.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match="not UTF-8"):
        load_metrics(bad)
    with pytest.raises(InputError, match="cannot read"):
        load_metrics(tmp_path / "missing.json")  # type: ignore[operator]


_LABEL = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)
_VALUE = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


@given(
    series=st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "DCGM_FI_DEV_SM_CLOCK",
                    "DCGM_FI_DEV_GPU_TEMP_CELSIUS",
                    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
                ]
            ),
            _LABEL,
            st.integers(0, 7),
            st.lists(
                st.tuples(
                    st.integers(1_700_000_000, 1_900_000_000),
                    _VALUE | st.just(float(DCGM_BLANK_MIN)),
                ),
                max_size=8,
                unique_by=lambda p: p[0],
            ),
        ),
        max_size=5,
        unique_by=lambda s: (s[0], s[1], s[2]),
    )
)
def test_prometheus_round_trip(series: list[tuple[str, str, int, list[tuple[int, float]]]]) -> None:
    result = [
        {
            "metric": {"__name__": name, "Hostname": host, "gpu": str(gpu)},
            "values": [
                [t, repr(v) if v != DCGM_BLANK_MIN else str(DCGM_BLANK_MIN)] for t, v in points
            ],
        }
        for name, host, gpu, points in series
    ]
    parsed = {
        (s.name, s.host, s.gpu_index): s
        for s in parse_prometheus_json(
            json.dumps({"status": "success", "data": {"resultType": "matrix", "result": result}})
        )
    }
    for name, host, gpu, points in series:
        kept = sorted((float(t), v) for t, v in points if v < DCGM_BLANK_MIN)
        if not kept:
            assert (name, host, gpu) not in parsed
            continue
        got = parsed[(name, host, gpu)]
        assert got.times.tolist() == [t for t, _ in kept]
        assert got.values.tolist() == pytest.approx([v for _, v in kept])


@given(st.text(max_size=200))
def test_garbage_is_an_input_error_or_series(text: str) -> None:
    try:
        result = parse_metrics_text(text)
    except InputError:
        return
    assert all(isinstance(s, MetricSeries) for s in result)
