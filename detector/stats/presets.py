"""Step-line parsers of the common trainers: pure functions ``message -> StepRecord | None``.

Each function reads one progress update (no carriage returns, no ANSI colours: steps.py strips
those). Times become seconds. What a trainer prints is quoted above each parser.
"""

from __future__ import annotations

import functools
import math
import re

from .model import StepRecord

NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_UNIT_FACTOR = {
    "ms": 1e-3,
    "us": 1e-6,
    "µs": 1e-6,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "seconds": 1.0,
}
_KEY_UNIT_SUFFIXES = (
    ("_seconds", "s"),
    ("_secs", "s"),
    ("_sec", "s"),
    ("_ms", "ms"),
    ("_us", "us"),
    ("_s", "s"),
)
# names (after normalisation) that mean "the whole step"
TOTAL_NAMES = frozenset(
    {
        "step",
        "iter",
        "iteration",
        "total",
        "time",
        "batch",
        "duration",
        "step_duration",
        "iter_duration",
        "per_step",
        "per_iter",
        "train_step",
        "it",
        "took",
    }
)
# cumulative or remaining times: not a step's duration
_IGNORED_NAMES = frozenset(
    {
        "eta",
        "remaining",
        "left",
        "runtime",
        "uptime",
        "wall",
        "elapsed",
        "clock",
        "total_time",
        "train",
        "train_time",
        "since",
        "timestamp",
        "date",
        "now",
    }
)
_TIMEISH = ("time", "latency", "duration")

_KV = re.compile(
    r"(?<![\w.])(?P<key>[A-Za-z][\w./-]*)(?:\s*\((?P<kunit>ms|s|sec|us|µs)\))?"
    r"(?:\\?\"\s*:\s*|\s*(?:[:=]\s*|\s+))(?P<val>" + NUM + r")"  # (a JSON record's "step_time": 3.4 too)
    r"(?:\s?(?P<vunit>ms|us|µs|secs|sec|seconds|s)(?![\w/]))?(?![\w.%/])"
)
_PER_STEP = re.compile(r"(?P<val>" + NUM + r")\s*(?P<unit>ms|s)\s*/\s*(?:step|it|iter|batch)\b")
_IT_PER_S = re.compile(r"(?P<val>" + NUM + r")\s*it/s\b")


def _normalise_key(key: str) -> str:
    return re.sub(r"[./\-\s]+", "_", key.strip().lower()).strip("_")


def time_value(
    key: str, kunit: str | None, vunit: str | None, value: str
) -> tuple[str, float] | None:
    """``("fwd", 0.0004)`` for ``fwd_ms 0.4``; None when the pair is not a time."""
    info = _key_info(key, kunit, vunit)
    if info is None:
        return None
    name, factor = info
    try:
        number = float(value)
    except ValueError:
        return None
    if not math.isfinite(number) or number < 0:
        return None
    return name, number * factor


@functools.lru_cache(maxsize=4096)
def _key_info(key: str, kunit: str | None, vunit: str | None) -> tuple[str, float] | None:
    """The timing name and unit factor a key stands for (keys repeat on every line: cached)."""
    name = _normalise_key(key)
    unit = kunit or vunit
    for suffix, suffix_unit in _KEY_UNIT_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            unit = unit or suffix_unit
            break
    timeish = any(word in name for word in _TIMEISH)
    if unit is None and not timeish:
        return None
    if name.endswith("_time") and len(name) > 5:
        name = name[:-5]
    elif name.startswith("time_") and len(name) > 5:
        name = name[5:]
    if name in _IGNORED_NAMES or name.startswith("eta"):
        return None
    return name, _UNIT_FACTOR[unit or "s"]


def split_times(text: str) -> tuple[float | None, tuple[tuple[str, float], ...]]:
    """The total step time and the other (rank-local) times named in ``key value unit`` pairs."""
    total: float | None = None
    local: list[tuple[str, float]] = []
    seen: set[str] = set()
    # (time_value inlined: this runs on every step line parsed; findall's tuples are key, kunit,
    # val, vunit, an absent group as "")
    for key, kunit, val, vunit in _KV.findall(text):
        info = _key_info(key, kunit or None, vunit or None)
        if info is None:
            continue
        try:
            number = float(val)
        except ValueError:
            continue
        if not math.isfinite(number) or number < 0:
            continue
        name, seconds = info[0], number * info[1]
        if name in TOTAL_NAMES:
            if total is None:
                total = seconds
        elif name not in seen:
            seen.add(name)
            local.append((name, seconds))
    if total is None:
        per = _PER_STEP.search(text)
        if per:
            total = float(per["val"]) * _UNIT_FACTOR[per["unit"]]
        else:
            rate = _IT_PER_S.search(text)
            if rate and float(rate["val"]) > 0:
                total = 1.0 / float(rate["val"])
    return total, tuple(local)


# --- generic: "step N ... <time>" ---------------------------------------------------------
# 2026-11-30 12:00:01,123 INFO [rank2] step 7 | loss 1.0312 | step_ms 61.2 | fwd_ms 0.4 | ...
# Step 100/1000, loss=2.31, step_time=0.45s, data_time=0.02s
_GENERIC_STEP = re.compile(
    r"(?<![\w/])(?:(?:global[_ ]?step|step|iteration|iter)(?!\w)(?:\\?\"\s*:\s*|\s*(?:[:=#]\s*|\s+)?\[?\s*)|it=)"
    r"(?P<step>\d+)(?:\s*/\s*(?P<total>\d+))?(?![\d.])",
    re.IGNORECASE,
)  # ("it=1200": the short form some loops print; "it" alone is a word, so only with its "=")


def _source_location(message: str, match: re.Match[str]) -> bool:
    """loguru's "module:function:line - " with a function named step ("trainer:step:212 - "):
    the line number of the code, not a step."""
    start = match.start()
    return (start > 0 and message[start - 1] == ":" and message.startswith(" - ", match.end())
            and message[start:match.start("step")].endswith(":"))


def parse_generic(message: str) -> StepRecord | None:
    match = _GENERIC_STEP.search(message)
    if match is not None and _source_location(message, match):
        match = _GENERIC_STEP.search(message, match.end())
    if match is None:
        return None
    duration, local = split_times(message[match.end() :])
    if duration is None and not local:
        return None
    total = int(match["total"]) if match["total"] else None
    return StepRecord(int(match["step"]), duration, local, total, "generic")


# --- tqdm progress bars (Hugging Face Trainer, Lightning) ---------------------------------
#   5%|▌         | 50/1000 [00:25<07:55,  2.00it/s]
# Epoch 0:  45%|████▌     | 450/1000 [00:30<00:36, 15.00it/s, v_num=0, train_loss=0.123]
_TQDM = re.compile(
    r"(?:(?P<desc>[^|]*?):\s*)?(?P<pct>\d{1,3})%\|[^|]*\|\s*(?P<n>\d+)/(?P<total>\d+)\s*"
    r"\[[^\]<]*<[^\],]*(?:,\s*(?:(?P<rate>" + NUM + r")|\?)\s*(?P<unit>it/s|s/it))?"
)
_NOT_TRAINING = re.compile(r"valid|eval|test|predict|sanity|inference", re.IGNORECASE)
_EPOCH_DESC = re.compile(r"^\s*Epoch\s+(?P<epoch>\d+)", re.IGNORECASE)


def _rate_to_seconds(rate: str | None, unit: str | None) -> float | None:
    if rate is None or unit is None:
        return None
    value = float(rate)
    if unit == "s/it":
        return value
    return 1.0 / value if value > 0 else None


# {'loss': 0.6931, 'grad_norm': 1.23, 'learning_rate': 4.9e-05, 'epoch': 0.05}
_HF_DICT = re.compile(r"\{\s*['\"]loss['\"]\s*:\s*(?P<loss>" + NUM + r"|nan|inf)")
_HF_STEP = re.compile(r"['\"](?:step|global_step)['\"]\s*:\s*(?P<step>\d+)")


def parse_huggingface(message: str) -> StepRecord | None:
    bar = _TQDM.search(message)
    if bar is not None:
        desc = bar["desc"] or ""
        if _EPOCH_DESC.match(desc) or _NOT_TRAINING.search(desc):
            return None
        duration = _rate_to_seconds(bar["rate"], bar["unit"])
        return StepRecord(int(bar["n"]), duration, (), int(bar["total"]), "huggingface")
    if _HF_DICT.search(message):
        step = _HF_STEP.search(message)
        return StepRecord(int(step["step"]) if step else None, None, (), None, "huggingface")
    return None


# Rich bar: Epoch 0/9 ━━━━━━━━━━━━ 450/1000 0:00:30 • 0:00:36 15.00it/s v_num: 0
_RICH = re.compile(r"Epoch\s+(?P<epoch>\d+)(?:/\d+)?\s*[^\d\s]*\s+(?P<n>\d+)/(?P<total>\d+)\b")
_RATE = re.compile(r"(?P<rate>" + NUM + r")\s*(?P<unit>it/s|s/it)\b")


def parse_lightning(message: str) -> StepRecord | None:
    bar = _TQDM.search(message)
    epoch: int | None = None
    if bar is not None:
        desc = _EPOCH_DESC.match(bar["desc"] or "")
        if desc is None:
            return None
        epoch = int(desc["epoch"])
        n, total, rate, unit = bar["n"], bar["total"], bar["rate"], bar["unit"]
    else:
        rich = _RICH.search(message)
        if rich is None:
            return None
        epoch = int(rich["epoch"])
        n, total = rich["n"], rich["total"]
        speed = _RATE.search(message, rich.end())
        rate, unit = (speed["rate"], speed["unit"]) if speed else (None, None)
    count = int(total)
    # the bar restarts every epoch: number the steps across epochs
    return StepRecord(epoch * count + int(n), _rate_to_seconds(rate, unit), (), count, "lightning")


# iteration      100/  500000 | consumed samples: 51200 | elapsed time per iteration (ms): 1234.5 |
_MEGATRON = re.compile(
    r"\biteration\s+(?P<step>\d+)\s*/\s*(?P<total>\d+)\s*\|"
    r"(?:.*?elapsed time per iteration \(ms\):\s*(?P<ms>" + NUM + r"))?"
)


def parse_megatron(message: str) -> StepRecord | None:
    match = _MEGATRON.search(message)
    if match is None:
        return None
    duration = float(match["ms"]) / 1000.0 if match["ms"] else None
    return StepRecord(int(match["step"]), duration, (), int(match["total"]), "megatron")


# [titan] 2025-01-01 12:00:00,000 - root - INFO - step:  1  loss: 12.2385  memory: 30.12GiB(31.68%)
#   tps: 1,234  tflops: 45.67  mfu: 12.34%
_TITAN = re.compile(r"\bstep:\s*(?P<step>\d+)\s+loss:\s*(?:" + NUM + r"|nan|inf)", re.IGNORECASE)


def parse_torchtitan(message: str) -> StepRecord | None:
    match = _TITAN.search(message)
    if match is None:
        return None
    duration, local = split_times(message[match.end() :])
    return StepRecord(int(match["step"]), duration, local, None, "torchtitan")


# [Rank 0] step=10, skipped=0, lr=[0.0001], mom=[(0.9, 0.999)]
# [Rank 0] time (ms) | fwd: 123.45 | bwd: 234.56 | bwd_inner: 200.1 | bwd_allreduce: 30.2 |
#   step: 12.3
# epoch=0/micro_step=10/global_step=10, RunningAvgSamplesPerSec=123.4, CurrSamplesPerSec=120.0, ...
_DS_STEP = re.compile(r"\bstep=(?P<step>\d+),\s*skipped=\d+")
_DS_THROUGHPUT = re.compile(r"\bglobal_step=(?P<step>\d+),\s*RunningAvgSamplesPerSec=")
_DS_TIMERS = re.compile(r"\btime \(ms\)\s*\|(?P<body>.*)")
_DS_PAIR = re.compile(r"(?P<key>[A-Za-z][\w]*)\s*:\s*(?P<val>" + NUM + r")")


def parse_deepspeed(message: str) -> StepRecord | None:
    match = _DS_STEP.search(message) or _DS_THROUGHPUT.search(message)
    if match is not None:
        return StepRecord(int(match["step"]), None, (), None, "deepspeed")
    timers = _DS_TIMERS.search(message)
    if timers is None:
        return None
    local: list[tuple[str, float]] = []
    for pair in _DS_PAIR.finditer(timers["body"]):
        name = pair["key"].lower()
        if name == "step":  # DeepSpeed's "step" timer is the optimizer step
            name = "optim_step"
        local.append((name, float(pair["val"]) / 1000.0))
    if not local:
        return None
    return StepRecord(None, None, tuple(local), None, "deepspeed")


# [epoch=1][batch=16/625]:
#          Train time/batch: 15
#          Train throughput/batches_per_sec: 3.4500
_COMPOSER_HEAD = re.compile(r"\[(?:epoch=(?P<epoch>\d+)\]\[)?batch=(?P<step>\d+)/(?P<total>\d+)\]")
_COMPOSER_RATE = re.compile(r"\bthroughput/(?:device/)?batches_per_sec:\s*(?P<rate>" + NUM + r")")


def parse_composer(message: str) -> StepRecord | None:
    head = _COMPOSER_HEAD.search(message)
    if head is not None:
        count = int(head["total"])
        epoch = int(head["epoch"]) if head["epoch"] else 0
        return StepRecord(epoch * count + int(head["step"]), None, (), count, "composer")
    rate = _COMPOSER_RATE.search(message)
    if rate is not None and float(rate["rate"]) > 0:
        return StepRecord(None, 1.0 / float(rate["rate"]), (), None, "composer")
    return None
