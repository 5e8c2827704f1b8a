"""The GPU metrics the outlier detector compares (:data:`SPECS`): the names each goes by (legacy
DCGM, DCGM 4.6, nvidia-smi, the NVML poller), which direction is harmful, the floors of its
spread and the smallest difference worth reporting; and the clock-event reason bits that slow a
GPU down."""

from __future__ import annotations

from dataclasses import dataclass

# clock-event reason bits that slow a GPU down (failure-signatures.md §2.2)
SLOWDOWN_BITS = {
    0x4: "power_cap",
    0x8: "hw_slowdown",
    0x20: "sw_thermal",
    0x40: "hw_thermal",
    0x80: "hw_power_brake",
}
SLOWDOWN_MASK = sum(SLOWDOWN_BITS)
HARDWARE_REASONS = ("hw_slowdown", "hw_thermal", "hw_power_brake")


@dataclass(frozen=True, slots=True)
class MetricSpec:
    key: str
    names: tuple[str, ...]  # legacy DCGM, DCGM 4.6, nvidia-smi, NVML poller names
    label: str
    unit: str
    direction: int  # -1: low is harmful, +1: high is harmful, 0: either
    rel_floor: float  # MAD floor as a fraction of the median
    abs_floor: float  # MAD floor in the unit
    material_rel: float  # smallest relative difference reported
    material_abs: float  # smallest absolute difference reported
    performance: bool  # a deviation here slows the GPU (temperature alone does not)
    bits: bool = False  # a clock-event bitmask: summarised as a share of samples


SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "sm_clock",
        (
            "DCGM_FI_DEV_SM_CLOCK",
            "dcgm_sm_clock",
            "clocks.sm",
            "clocks.current.sm",
            "nvml_sm_clock_mhz",
            "sm_clock_mhz",
        ),
        "SM clock",
        "MHz",
        -1,
        0.01,
        5.0,
        0.05,
        0.0,
        True,
    ),
    MetricSpec(
        "clock_events",
        (
            "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
            "DCGM_FI_DEV_CLOCKS_EVENT_REASONS",
            "clocks_event_reasons.active",
            "clocks_throttle_reasons.active",
            "nvml_clocks_event_reasons",
        ),
        "slowdown clock-event reasons",
        "share of samples",
        1,
        0.0,
        0.02,
        0.0,
        0.1,
        True,
        bits=True,
    ),
    MetricSpec(
        "clock_event_count",
        ("DCGM_EXP_CLOCK_EVENTS_COUNT",),
        "slowdown clock events",
        "per window",
        1,
        0.0,
        0.5,
        0.0,
        1.0,
        True,
    ),
    MetricSpec(
        "power",
        (
            "DCGM_FI_DEV_POWER_USAGE",
            "DCGM_FI_DEV_BOARD_POWER_WATTS",
            "dcgm_power_usage",
            "power.draw",
            "nvml_power_w",
            "power_w",
        ),
        "power",
        "W",
        0,
        0.02,
        2.0,
        0.10,
        0.0,
        True,
    ),
    MetricSpec(
        "tensor_active",
        ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_TENSOR_UTIL_RATIO"),
        "tensor activity",
        "ratio",
        0,
        0.0,
        0.02,
        0.10,
        0.05,
        True,
    ),
    MetricSpec(
        "gr_active",
        ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO"),
        "graphics engine activity",
        "ratio",
        0,
        0.0,
        0.02,
        0.10,
        0.05,
        True,
    ),
    MetricSpec(
        "sm_active",
        ("DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_UTIL_RATIO"),
        "SM activity",
        "ratio",
        0,
        0.0,
        0.02,
        0.10,
        0.05,
        True,
    ),
    MetricSpec(
        "gpu_util",
        (
            "DCGM_FI_DEV_GPU_UTIL",
            "DCGM_FI_DEV_GPU_UTIL_RATIO",
            "dcgm_gpu_utilization",
            "utilization.gpu",
            "nvml_gpu_util",
        ),
        "GPU utilisation",
        "%",
        0,
        0.02,
        1.0,
        0.15,
        0.0,
        True,
    ),
    MetricSpec(
        "gpu_temp",
        (
            "DCGM_FI_DEV_GPU_TEMP",
            "DCGM_FI_DEV_GPU_TEMP_CELSIUS",
            "dcgm_gpu_temp",
            "temperature.gpu",
            "nvml_temperature_c",
        ),
        "GPU temperature",
        "°C",
        1,
        0.0,
        1.5,
        0.0,
        8.0,
        False,
    ),
    MetricSpec(
        "mem_temp",
        ("DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_MEMORY_TEMP_CELSIUS", "temperature.memory"),
        "memory temperature",
        "°C",
        1,
        0.0,
        1.5,
        0.0,
        8.0,
        False,
    ),
)


def spec_for(name: str) -> MetricSpec | None:
    for spec in SPECS:
        if name in spec.names:
            return spec
    return None

