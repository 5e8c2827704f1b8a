"""Small readings of names and dumps: a node report's file named for nvidia-smi's subcommand and the
node ("nvidia-smi-row-remapper-hgx-r10-n01.txt") names the node, not "row-remapper-..."; py-spy's
"(active+gil)" thread state is a main thread's dump like "(idle)" and "(active)"."""

from __future__ import annotations

from detector.rules.engine import RuleSet
from detector.sources.runs import _TOOL_NAME_HOST, _host_of_kernel_name
from detector.types import StreamKind


def test_a_node_report_named_for_nvidia_smis_row_remapper_names_its_node() -> None:
    assert _host_of_kernel_name("nvidia-smi-row-remapper-hgx-r10-n01.txt", _TOOL_NAME_HOST) == "hgx-r10-n01"
    assert _host_of_kernel_name("nvidia-smi-retired-pages_dgx-07.txt", _TOOL_NAME_HOST) == "dgx-07"


def test_py_spys_active_gil_main_thread_is_a_stack_dump(ruleset: RuleSet) -> None:
    hits = [m.rule.id for m in ruleset.match_all('Thread 2291 (active+gil): "MainThread"', StreamKind.RANK_LOG)]
    assert "python.stack_dump_main_thread" in hits, hits
