"""Hostile inputs a fifty-third-session tester found: logs rotated by date (Python's
TimedRotatingFileHandler, logrotate's dateext) and kernel logs under a name of their kind, read
as nothing; a rotated "dmesg.out.2" whose rotation was taken for a node to drain; Keras' progress
bar (backspaces) taken for binary data; /proc replayed forever; a stream on standard input
read whole into memory."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from detector.cli.main import main
from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

XID = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
OOM = "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
WATCHDOG = ("[rank0]: [E ProcessGroupNCCL.cpp:1182] [Rank 0] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600123 "
            "milliseconds before timing out.\n")


@pytest.mark.parametrize("name", ["train.log.2024-05-01", "train.log.2024-05-01_12-00-00", "rank3.log-20240501",
                                  "rank3.logs"])
def test_a_rank_log_rotated_by_date_is_read(tmp_path: Path, ruleset: RuleSet, name: str) -> None:
    got = incidents_of(tmp_path, {"train.log": WATCHDOG, name: OOM}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.CUDA_OOM, 3)]


@pytest.mark.parametrize(("name", "node"), [("kern.log-20240501", None), ("node02.dmesg", "node02"),
                                            ("node02.kmsg", "node02"), ("dmesg.out.2", None), ("dmesg.txt.1", None)])
def test_a_kernel_log_rotated_or_named_for_its_kind_is_read_and_names_no_made_up_node(
        tmp_path: Path, ruleset: RuleSet, name: str, node: str | None) -> None:
    """Before, the Xid in the first three was never read (a hang was reported); in the last two the
    rotation's ".out.2" / ".txt.1" was taken for a node to drain and ssh to."""
    got = incidents_of(tmp_path, {"rank0.log": WATCHDOG, name: XID}, ruleset)
    assert [(g.cause, g.node) for g in got][:1] == [(Cause.GPU_HARDWARE, node)]


def test_keras_progress_bar_backspaces_are_no_binary_data(tmp_path: Path, ruleset: RuleSet) -> None:
    """Keras writes a line's width of backspaces before each redraw of its bar, to a file too: the
    file was skipped as binary data and the OOM at its end lost."""
    parts, prev = ["Epoch 1/10\n"], 0
    for i in range(1, 200):
        line = f"{i:4d}/1000 [{'=' * (i * 30 // 1000)}>{'.' * (29 - i * 30 // 1000)}] - ETA: 1:23 - loss: 2.{i % 10}345"
        parts.append("\b" * prev + "\r" + line)
        prev = len(line)
    parts.append('\nTraceback (most recent call last):\n  File "train.py", line 3, in <module>\n' + OOM)
    got = incidents_of(tmp_path, {"worker3.log": "".join(parts)}, ruleset)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.CUDA_OOM, 3)]


def test_proc_is_refused_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run folder linked to /proc/self read /proc/PID/pagemap (hundreds of GiB of NULs) forever."""
    (tmp_path / "run").symlink_to("/proc/self")
    assert main(["replay", str(tmp_path / "run"), "--no-progress"]) != 0
    err = capsys.readouterr().err
    assert "kernel pseudo-filesystem" in err and "Traceback" not in err


def test_rules_test_reads_a_bounded_standard_input(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``rules test -`` read the whole stream into memory (a MemoryError's traceback under a limit);
    it now reads at most replay's limit and says what to do beyond it."""
    import detector.cli.main as cli_main

    monkeypatch.setattr(cli_main, "STDIN_LIMIT", 1 << 10)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"[rank3]: step 5 loss 2.3\n" * 100)))
    assert main(["rules", "test", "-"]) != 0
    assert "standard input is over" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(OOM.encode())))
    assert main(["rules", "test", "-"]) == 0
    assert "torch.cuda_oom" in capsys.readouterr().out

