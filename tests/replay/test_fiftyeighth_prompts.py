"""A paste whose commands ran at bash's default prompt on Red Hat-like systems ("[root@gpu-node-07
~]# dmesg -T") names its host as "root@gpu-node-07:~#" does: the kernel's lines below it are that
node's, so the drain names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet

XID = ("[Mon Jun  9 01:29:47 2025] NVRM: Xid (PCI:0000:1b:00): 79, pid='<unknown>', name=<unknown>, "
       "GPU has fallen off the bus.")


@pytest.mark.parametrize("prompt", ["[root@gpu-node-07 ~]# dmesg -T | grep -i xid",
                                    "(base) [alice@gpu-node-07 nccl-tests]$ sudo dmesg -T",
                                    "alice@gpu-node-07:~$ sudo dmesg -T"])
def test_a_bracketed_prompt_names_the_node_of_the_lines_below(tmp_path: Path, ruleset: RuleSet, prompt: str) -> None:
    (tmp_path / "paste.txt").write_text("\n".join([prompt, XID]) + "\n")
    incident = replay_path(tmp_path, ruleset).incidents[0]
    assert (incident.cause.value, incident.initiator.node) == ("gpu_hardware", "gpu-node-07")


def test_brackets_that_are_no_prompt_name_no_host(tmp_path: Path, ruleset: RuleSet) -> None:
    """(a log line's bracketed field with an @ in it is not a prompt)"""
    (tmp_path / "paste.txt").write_text("\n".join(["[worker@gpu-node-07 started] loading", XID]) + "\n")
    incident = replay_path(tmp_path, ruleset).incidents[0]
    assert incident.initiator.node is None


def test_a_prompt_whose_command_runs_on_other_hosts_names_none(tmp_path: Path, ruleset: RuleSet) -> None:
    """(an administrator's clush from the management node: the lines it prints are gpu-node-07's)"""
    (tmp_path / "diag.txt").write_text("\n".join([
        "[root@mgmt01 ~]# clush -w gpu-node-[07-08] 'dmesg -T | grep -i xid'",
        "gpu-node-07: " + XID]) + "\n")
    incident = replay_path(tmp_path, ruleset).incidents[0]
    assert incident.initiator.node in (None, "gpu-node-07")
