"""Step-line presets, custom patterns, markers and step numbering (stats.steps)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from detector.errors import ConfigError
from detector.stats import (
    PRESETS,
    NoteKind,
    StepRecord,
    StepResolver,
    choose_preset,
    custom_preset,
    parse_note,
    parse_step,
    parse_steps,
    preset_by_name,
)

TRAIN_DDP = (
    "2026-11-30 02:49:53,914 INFO [rank0] step 7 | loss 0.7574 | step_ms 53.3 | fwd_ms 24.4"
    " | bwd_ms 17.6 | data_ms 11.3"
)

# (preset, line, step, duration_s, local timings)
EXAMPLES = [
    ("generic", TRAIN_DDP, 7, 0.0533, {"fwd": 0.0244, "bwd": 0.0176, "data": 0.0113}),
    (
        "generic",
        "Step 100/1000, loss=2.31, step_time=0.45s, data_time=0.02s",
        100,
        0.45,
        {"data": 0.02},
    ),
    ("generic", "[step 100] loss 2.3 | 450.1 ms/step", 100, 0.4501, {}),
    ("generic", "iter 5 took 123 ms", 5, 0.123, {}),
    ("generic", "global_step=12 time: 1.5 forward (ms): 300", 12, 1.5, {"forward": 0.3}),
    ("huggingface", "  5%|▌         | 50/1000 [00:25<07:55,  2.00it/s]", 50, 0.5, {}),
    ("huggingface", " 10%|█         | 100/1000 [02:40<15:00,  1.60s/it]", 100, 1.6, {}),
    (
        "huggingface",
        "{'loss': 0.6931, 'grad_norm': 1.23, 'learning_rate': 4.9e-05, 'epoch': 0.05}",
        None,
        None,
        {},
    ),
    (
        "lightning",
        "Epoch 1:  45%|████▌     | 450/1000 [00:30<00:36, 15.00it/s, v_num=0, train_loss=0.123]",
        1450,
        1 / 15,
        {},
    ),
    (
        "lightning",
        "Epoch 0/9 ━━━━━━━━━━━━ 450/1000 0:00:30 • 0:00:36 15.00it/s v_num: 0",
        450,
        1 / 15,
        {},
    ),
    (
        "megatron",
        " [2024-01-01 12:00:00] iteration      100/  500000 | consumed samples:        51200 | "
        "elapsed time per iteration (ms): 1234.5 | learning rate: 1.000E-04 | "
        "global batch size:   512 "
        "| lm loss: 5.123456E+00 | loss scale: 1.0 |",
        100,
        1.2345,
        {},
    ),
    (
        "torchtitan",
        "[titan] 2025-01-01 12:00:00,000 - root - INFO - \x1b[31mstep:  1  \x1b[32mloss: 12.2385  "
        "\x1b[33mmemory: 30.12GiB(31.68%)  \x1b[34mtps: 1,234  \x1b[36mtflops: 45.67  "
        "\x1b[35mmfu: 12.34%\x1b[39m",
        1,
        None,
        {},
    ),
    (
        "deepspeed",
        "[2024-01-01 12:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=10, skipped=0, "
        "lr=[0.0001], mom=[(0.9, 0.999)]",
        10,
        None,
        {},
    ),
    (
        "deepspeed",
        "[Rank 0] time (ms) | fwd: 123.45 | bwd: 234.56 | bwd_inner: 200.1 | "
        "bwd_allreduce: 30.2 | step: 12.3",
        None,
        None,
        {
            "fwd": 0.12345,
            "bwd": 0.23456,
            "bwd_inner": 0.2001,
            "bwd_allreduce": 0.0302,
            "optim_step": 0.0123,
        },
    ),
    (
        "deepspeed",
        "epoch=0/micro_step=10/global_step=10, RunningAvgSamplesPerSec=123.4, "
        "CurrSamplesPerSec=120.0",
        10,
        None,
        {},
    ),
    ("composer", "[epoch=1][batch=16/625]:", 641, None, {}),
    ("composer", "\t Train throughput/batches_per_sec: 4.0000", None, 0.25, {}),
]


@pytest.mark.parametrize(("preset", "line", "step", "duration", "local"), EXAMPLES)
def test_presets_read_their_lines(
    preset: str, line: str, step: int | None, duration: float | None, local: dict[str, float]
) -> None:
    record = preset_by_name(preset).parse(line)
    assert record is not None
    assert record.preset == preset
    assert record.step == step
    if duration is None:
        assert record.duration_s is None
    else:
        assert record.duration_s == pytest.approx(duration)
    assert dict(record.local) == pytest.approx(local)


@pytest.mark.parametrize(
    "line",
    [
        "2026-11-30 02:49:56,950 INFO [rank2] checkpoint saved step 10 path "
        "/tmp/ckpt/step_00000010/model.pt",
        "2026-11-30 02:49:56,950 INFO [rank2] training finished step 60",
        "[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=15734, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=600000) ran for "
        "600037 milliseconds before timing out.",
        "NCCL INFO comm 0x55d0c8a0 rank 5 nranks 16 cudaDev 5 busId 9a000 - Init COMPLETE",
        "Validation DataLoader 0:  50%|█████     | 5/10 [00:01<00:01,  4.00it/s]",
        "{'eval_loss': 0.5, 'eval_runtime': 12.3, 'epoch': 1.0}",
        "stepping down the learning rate at 10:00",
    ],
)
def test_non_step_lines_are_not_steps(line: str) -> None:
    assert parse_step(line) is None


def test_carriage_returns_keep_every_update_and_parse_returns_the_last() -> None:
    line = (
        "  5%|▌         | 50/1000 [00:25<07:55,  2.00it/s]\r"
        "  5%|▌         | 51/1000 [00:26<07:55,  1.50s/it]\r"
    )
    hf = preset_by_name("huggingface")
    record = hf.parse(line)
    assert record is not None
    assert (record.step, record.duration_s) == (51, 1.5)
    assert [r.step for r in parse_steps(line, hf)] == [50, 51]


def test_evaluation_bar_is_left_to_the_series_by_its_total() -> None:
    hf = preset_by_name("huggingface")
    train = hf.parse(" 10%|█         | 100/1000 [00:50<07:30,  2.00it/s]")
    evaluation = hf.parse("100%|██████████| 50/50 [00:05<00:00,  9.80it/s]")
    assert train is not None
    assert evaluation is not None
    assert (train.total, evaluation.total) == (1000, 50)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ([TRAIN_DDP] * 3, "generic"),
        ([line for name, line, *_ in EXAMPLES if name == "megatron"] * 2 + [TRAIN_DDP], "megatron"),
        (
            ["  5%|▌         | 50/1000 [00:25<07:55,  2.00it/s]", "{'loss': 0.6, 'epoch': 0.1}"],
            "huggingface",
        ),
        (["Epoch 0:  45%|████▌     | 450/1000 [00:30<00:36, 15.00it/s, v_num=0]"], "lightning"),
        (["[epoch=1][batch=16/625]:", "\t Train throughput/batches_per_sec: 3.4500"], "composer"),
    ],
)
def test_choose_preset_per_run(lines: list[str], expected: str) -> None:
    preset = choose_preset(["some other line", *lines])
    assert preset is not None
    assert preset.name == expected


def test_choose_preset_without_step_lines_is_none() -> None:
    assert choose_preset(["hello", "NCCL INFO Bootstrap", ""]) is None


def test_custom_pattern_reads_its_groups() -> None:
    preset = custom_preset(r"it=(?P<step>\d+) t=(?P<time_ms>[\d.]+) load=(?P<data_s>[\d.]+)")
    record = preset.parse("INFO it=42 t=250.5 load=0.01")
    assert record is not None
    assert (record.step, record.local, record.total, record.preset) == (
        42,
        (("data", 0.01),),
        None,
        "custom",
    )
    assert record.duration_s == pytest.approx(0.2505)


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (r"step (?P<step>\d+", "does not compile"),
        (r"it=(?P<n>\d+)", "no (?P<step>...) group"),
        (r"step (?P<step>\d+) (?P<speed>[\d.]+)", "group 'speed' is not understood"),
    ],
)
def test_custom_pattern_errors_are_clear(pattern: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        custom_preset(pattern, where="rankdoctor.yaml", line=12)
    assert message in str(caught.value)
    assert str(caught.value).startswith("rankdoctor.yaml:12:")


def test_unknown_preset_lists_the_known_names() -> None:
    with pytest.raises(ConfigError, match="known presets: megatron, lightning"):
        preset_by_name("keras")


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("Saving model checkpoint to /out/checkpoint-500", NoteKind.PAUSE),
        ("2026-11-30 INFO [rank0] checkpoint saved step 10 path /tmp/x", NoteKind.PAUSE),
        ("***** Running Evaluation *****", NoteKind.PAUSE),
        ("Validation DataLoader 0:  50%|█████     | 5/10", NoteKind.PAUSE),
        ("2026-11-30 INFO [rank2] training finished step 60", NoteKind.END),
        ("{'train_runtime': 123.4, 'train_samples_per_second': 9.1, 'epoch': 3.0}", NoteKind.END),
        ("NCCL INFO Init COMPLETE", None),
    ],
)
def test_notes(line: str, kind: NoteKind | None) -> None:
    assert parse_note(line) is kind


def test_resolver_attaches_unnumbered_records_to_the_current_step() -> None:
    resolver = StepResolver()
    steps = [
        resolver.resolve(StepRecord(10)),
        resolver.resolve(StepRecord(None, local=(("fwd", 0.1),))),
        resolver.resolve(StepRecord(11)),
    ]
    assert steps == [10, 10, 11]


def test_resolver_counts_when_lines_never_name_a_step() -> None:
    resolver = StepResolver()
    assert [resolver.resolve(StepRecord(None)) for _ in range(3)] == [0, 1, 2]
    sample = resolver.sample(StepRecord(None, 0.5), rank=3, node="n1", time=1.0, text="x")
    assert (sample.rank, sample.step, sample.duration_s, sample.node) == (3, 3, 0.5, "n1")


# --- properties ---------------------------------------------------------------------------

_KEYS = st.sampled_from(["fwd", "data", "compute", "h2d", "optimizer_wait", "load"])
_UNITS = st.sampled_from([("_ms", "", 1e-3), ("", " ms", 1e-3), ("_s", "", 1.0), ("", "s", 1.0)])
_VALUES = st.floats(min_value=0.001, max_value=99999, allow_nan=False).map(lambda v: round(v, 3))


@given(
    step=st.integers(min_value=0, max_value=10**9),
    total=_VALUES,
    pairs=st.dictionaries(_KEYS, st.tuples(_VALUES, _UNITS), max_size=4),
    sep=st.sampled_from([" | ", ", ", "  "]),
    prefix=st.sampled_from(["", "2026-11-30 12:00:01,123 INFO [rank3] ", "[default0]:"]),
)
def test_generic_preset_round_trip(
    step: int,
    total: float,
    pairs: dict[str, tuple[float, tuple[str, str, float]]],
    sep: str,
    prefix: str,
) -> None:
    parts = [f"step {step}", "loss 1.2345", f"step_ms {total}"]
    expected: dict[str, float] = {}
    for key, (value, (key_suffix, value_suffix, factor)) in pairs.items():
        parts.append(f"{key}{key_suffix} {value}{value_suffix}")
        expected[key] = value * factor
    record = parse_step(prefix + sep.join(parts))
    assert record is not None
    assert record.step == step
    assert record.duration_s == pytest.approx(total * 1e-3)
    assert dict(record.local) == pytest.approx(expected)


@given(
    n=st.integers(min_value=0, max_value=10**6),
    extra=st.integers(min_value=0, max_value=10**6),
    rate=st.floats(min_value=0.01, max_value=999, allow_nan=False).map(lambda v: round(v, 2)),
    unit=st.sampled_from(["it/s", "s/it"]),
)
def test_tqdm_round_trip(n: int, extra: int, rate: float, unit: str) -> None:
    total = n + extra + 1
    line = f" {100 * n // total:3d}%|███       | {n}/{total} [00:25<07:55, {rate:5.2f}{unit}]"
    record = preset_by_name("huggingface").parse(line)
    assert record is not None
    assert (record.step, record.total) == (n, total)
    expected = rate if unit == "s/it" else 1 / rate
    assert record.duration_s == pytest.approx(expected)


@given(st.text(max_size=300))
def test_parsers_never_raise(text: str) -> None:
    for preset in PRESETS:
        record = preset.parse(text)
        if record is not None and record.duration_s is not None:
            assert math.isfinite(record.duration_s)
            assert record.duration_s >= 0
    parse_note(text)


def test_the_short_it_equals_form_is_a_step_line() -> None:
    """"it=6001 ... iter_time=4.2s" (a loop's short form) names a step; "it" as a word does not."""
    from detector.stats import choose_preset
    from detector.stats.presets import parse_generic

    line = "[2026-02-17 07:25:31][rank1] it=6001 loss=2.95 data_time=0.004s compute_time=4.199s iter_time=4.233s"
    record = parse_generic(line)
    assert record is not None and record.step == 6001 and record.duration_s == pytest.approx(4.233)
    assert dict(record.local)["compute"] == pytest.approx(4.199)
    preset = choose_preset([line] * 8)
    assert preset is not None and preset.name == "generic"
    assert parse_generic("and then it waits 5 s for it") is None
    assert parse_generic("commit=6001 took 3 s") is None
