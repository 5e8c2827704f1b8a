"""Every scenario this package writes: its folder name, its base time and the function that builds it.

The order is the order of the summary table. Folder names end in ``_<ranks>r``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .application import sc_cuda_oom, sc_host_oom, sc_mismatch, sc_python_exception_combined, sc_skew
from .crashes import sc_device_assert, sc_sigsegv, sc_xid31
from .finish import sc_all_finished, sc_teardown_hang, sc_uneven_data
from .hangs import (
    sc_dataloader,
    sc_hang_all_timeout,
    sc_hang_lowest_seq,
    sc_hang_silent,
    sc_straggler,
    sc_unknown_remote_error,
)
from .hardware import sc_two_failures, sc_xid48, sc_xid74, sc_xid79
from .healthy import sc_healthy_ckpt, sc_healthy_scary
from .network import sc_nic_down
from .scheduler import sc_preemption, sc_sbatch_abort
from .throttle import sc_healthy_gpu_noise, sc_throttled_gpu
from .writer import Scenario


@dataclass
class ScenarioSpec:
    name: str
    base: datetime
    build: Callable[[Scenario], dict[str, Any]]


SCENARIOS: list[ScenarioSpec] = [
    ScenarioSpec("xid79_fallen_off_bus_16r", datetime(2026, 11, 14, 8, 0, 0, tzinfo=UTC), sc_xid79),
    ScenarioSpec("xid48_ecc_dbe_8r", datetime(2026, 11, 29, 11, 20, 0, tzinfo=UTC), sc_xid48),
    ScenarioSpec("xid74_nvlink_8r", datetime(2026, 11, 8, 19, 0, 0, tzinfo=UTC), sc_xid74),
    ScenarioSpec("xid31_app_fault_nodrain_4r", datetime(2026, 11, 5, 14, 0, 0, tzinfo=UTC), sc_xid31),
    ScenarioSpec("cuda_oom_8r", datetime(2026, 11, 3, 9, 0, 0, tzinfo=UTC), sc_cuda_oom),
    ScenarioSpec("python_exception_combined_4r", datetime(2026, 11, 10, 16, 0, 0, tzinfo=UTC), sc_python_exception_combined),
    ScenarioSpec("host_oom_kill_8r", datetime(2026, 11, 17, 2, 0, 0, tzinfo=UTC), sc_host_oom),
    ScenarioSpec("sigsegv_crash_4r", datetime(2026, 11, 21, 13, 0, 0, tzinfo=UTC), sc_sigsegv),
    ScenarioSpec("preemption_slurm_16r", datetime(2026, 11, 20, 2, 40, 0, tzinfo=UTC), sc_preemption),
    ScenarioSpec("hang_silent_rank_8r", datetime(2026, 11, 12, 22, 0, 0, tzinfo=UTC), sc_hang_silent),
    ScenarioSpec("hang_lowest_seq_128r", datetime(2026, 11, 25, 4, 0, 0, tzinfo=UTC), sc_hang_lowest_seq),
    ScenarioSpec("collateral_first_skew_8r", datetime(2026, 12, 3, 10, 0, 0, tzinfo=UTC), sc_skew),
    ScenarioSpec("data_loader_stall_4r", datetime(2026, 11, 27, 7, 0, 0, tzinfo=UTC), sc_dataloader),
    ScenarioSpec("collective_mismatch_4r", datetime(2026, 11, 16, 15, 0, 0, tzinfo=UTC), sc_mismatch),
    ScenarioSpec("network_nic_down_16r", datetime(2026, 11, 19, 21, 0, 0, tzinfo=UTC), sc_nic_down),
    ScenarioSpec("hang_all_timeout_4r", datetime(2026, 11, 26, 18, 0, 0, tzinfo=UTC), sc_hang_all_timeout),
    ScenarioSpec("unknown_remote_error_4r", datetime(2026, 11, 26, 20, 0, 0, tzinfo=UTC), sc_unknown_remote_error),
    ScenarioSpec("straggler_rank_local_timings_8r", datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC), sc_straggler),
    ScenarioSpec("healthy_scary_warnings_8r", datetime(2026, 11, 30, 6, 0, 0, tzinfo=UTC), sc_healthy_scary),
    ScenarioSpec("healthy_with_checkpoint_pauses_16r", datetime(2026, 11, 23, 0, 0, 0, tzinfo=UTC), sc_healthy_ckpt),
    ScenarioSpec("two_failures_xid119_and_oom_16r", datetime(2026, 11, 18, 3, 0, 0, tzinfo=UTC), sc_two_failures),
    ScenarioSpec("sbatch_out_named_ranks_32r", datetime(2026, 11, 26, 9, 0, 0, tzinfo=UTC), sc_sbatch_abort),
    ScenarioSpec("xid43_device_assert_2r", datetime(2026, 11, 28, 20, 0, 0, tzinfo=UTC), sc_device_assert),
    ScenarioSpec("throttled_gpu_sync_slowdown_64r", datetime(2026, 12, 2, 9, 0, 0, tzinfo=UTC), sc_throttled_gpu),
    ScenarioSpec("healthy_gpu_metric_noise_64r", datetime(2026, 12, 2, 14, 0, 0, tzinfo=UTC), sc_healthy_gpu_noise),
    ScenarioSpec("teardown_hang_4r", datetime(2026, 12, 3, 16, 0, 0, tzinfo=UTC), sc_teardown_hang),
    ScenarioSpec("uneven_data_hang_4r", datetime(2026, 12, 4, 1, 0, 0, tzinfo=UTC), sc_uneven_data),
    ScenarioSpec("healthy_all_finished_4r", datetime(2026, 12, 4, 11, 0, 0, tzinfo=UTC), sc_all_finished),
]
