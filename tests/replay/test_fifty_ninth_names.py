"""Small readings of names and dumps: a node report's file named for nvidia-smi's subcommand and the
node ("nvidia-smi-row-remapper-hgx-r10-n01.txt") names the node, not "row-remapper-..."; py-spy's
"(active+gil)" thread state is a main thread's dump like "(idle)" and "(active)"."""

from __future__ import annotations

from pathlib import Path

from detector.rules.engine import RuleSet
from detector.sources.runs import _TOOL_NAME_HOST, _host_of_kernel_name
from detector.types import StreamKind


def test_a_node_report_named_for_nvidia_smis_row_remapper_names_its_node() -> None:
    assert _host_of_kernel_name("nvidia-smi-row-remapper-hgx-r10-n01.txt", _TOOL_NAME_HOST) == "hgx-r10-n01"
    assert _host_of_kernel_name("nvidia-smi-retired-pages_dgx-07.txt", _TOOL_NAME_HOST) == "dgx-07"


def test_py_spys_active_gil_main_thread_is_a_stack_dump(ruleset: RuleSet) -> None:
    hits = [m.rule.id for m in ruleset.match_all('Thread 2291 (active+gil): "MainThread"', StreamKind.RANK_LOG)]
    assert "python.stack_dump_main_thread" in hits, hits


def test_a_kaggle_notebooks_log_download_is_read(tmp_path: Path, ruleset: RuleSet) -> None:
    """Kaggle's log download: a JSON array of {stream_name, time (seconds into the session), data}."""
    import json

    from detector.replay import replay_path

    records = [{"stream_name": "stdout", "time": 1.9, "data": "Loading checkpoint shards: 100%|##########| 2/2\n"},
               {"stream_name": "stderr", "time": 84.2, "data": "[rank0]: torch.OutOfMemoryError: CUDA out of memory. "
                "Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 14.74 GiB of which 1.12 GiB is free.\n"}]
    (tmp_path / "kaggle_log.json").write_text(json.dumps(records, indent=1))
    incidents = replay_path(tmp_path, ruleset).incidents
    assert incidents and incidents[0].cause.value == "cuda_oom", incidents


def test_colabs_out_of_ram_notice_is_a_host_oom(tmp_path: Path, ruleset: RuleSet) -> None:
    from detector.replay import replay_path

    (tmp_path / "colab.txt").write_text(
        "Map: 100%|##########| 52002/52002 [00:41<00:00, 1262.11 examples/s]\n"
        "  3%|3         | 41/1200 [02:11<1:01:33,  3.19s/it]\n"
        "Your session crashed after using all available RAM. If you are interested in access to high-RAM runtimes, "
        "you may want to check out Colab Pro.\n")
    incidents = replay_path(tmp_path, ruleset).incidents
    assert incidents and incidents[0].cause.value == "host_oom_kill", incidents


def test_an_ena_keep_alive_timeout_is_that_nodes_network(tmp_path: Path, ruleset: RuleSet) -> None:
    from detector.replay import replay_path

    (tmp_path / "dmesg-ip-172-31-20-140.txt").write_text(
        "[1041.337788] ena 0000:00:05.0 eth0: Keep alive watchdog timeout.\n"
        "[1041.437788] ena 0000:00:05.0 eth0: Trigger reset is on\n")
    incidents = replay_path(tmp_path, ruleset).incidents
    assert incidents and (incidents[0].cause.value, incidents[0].initiator.node) == ("network", "ip-172-31-20-140")
