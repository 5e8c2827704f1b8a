"""Logs packed in archives (a node's logs collected as ``node07.tar.gz``, an issue's
``logs.zip``) and compressed with bzip2 or xz: read as the run's files, safely."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import zipfile
from pathlib import Path

import pytest

import detector.sources.archives as archives
from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.sources.runs import discover
from detector.types import Cause

XID = ("[Tue Nov 26 03:14:15 2024] NVRM: Xid (PCI:0000:87:00): 79, pid=2233, name=python, "
       "GPU has fallen off the bus.\n")
OWN = ("[rank4]: Traceback (most recent call last):\n"
       "[rank4]: RuntimeError: CUDA error: unspecified launch failure\n")
TIMEOUT = ("[rank{r}]:[E1126 03:24:15.227531 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
           "600031 milliseconds before timing out.\n")


def _tar(path: Path, members: dict[str, bytes], mode: str = "w:gz") -> None:
    with tarfile.open(path, mode) as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))


def test_a_nodes_archive_is_read_under_its_name(tmp_path, ruleset: RuleSet) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "slurm-77.out").write_text("srun: error: node07: task 4: Exited with exit code 1\n")
    _tar(run / "node07.tar.gz", {"logs/rank4.log": OWN.encode(), "logs/dmesg.log": XID.encode()})
    _tar(run / "node08.tar.gz", {"logs/rank12.log": TIMEOUT.format(r=12).encode()})
    report = replay_path(run, ruleset)
    first = report.incidents[0]
    assert first.cause is Cause.GPU_HARDWARE
    assert first.initiator.node == "node07"
    shown = {e.file for i in report.incidents for e in i.evidence}
    assert "node07.tar.gz/logs/dmesg.log" in shown


def test_names_that_climb_out_stay_inside(tmp_path, ruleset: RuleSet) -> None:
    run = tmp_path / "run"
    run.mkdir()
    with zipfile.ZipFile(run / "logs.zip", "w") as zf:
        zf.writestr("../../escaped.log", OWN)
        zf.writestr("/etc/absolute.log", TIMEOUT.format(r=2))
        zf.writestr("C:\\Users\\me\\train\\rank1.log", TIMEOUT.format(r=1))
    files, _warnings = discover(run)
    assert not (tmp_path / "escaped.log").exists() and not list(tmp_path.glob("*.log"))
    assert sorted(f.display for f in files) == ["logs.zip/Users/me/train/rank1.log", "logs.zip/escaped.log",
                                                "logs.zip/etc/absolute.log"]
    report = replay_path(run, ruleset)
    assert report.incidents and report.incidents[0].initiator.rank == 4


def test_an_archive_cut_short_gives_what_it_holds(tmp_path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    whole = tmp_path / "whole.tar.gz"
    _tar(whole, {"rank0.log": OWN.encode(), "rank1.log": (TIMEOUT.format(r=1) * 4000).encode()})
    data = whole.read_bytes()
    (run / "node01.tar.gz").write_bytes(data[: len(data) // 2])
    files, warnings = discover(run)
    assert any(f.display == "node01.tar.gz/rank0.log" for f in files)
    assert any("node01.tar.gz" in w and ("ends early" in w or "cut short" in w) for w in warnings)


def test_a_zip_without_its_table_of_contents_is_said(tmp_path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "train.log").write_text(OWN)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("rank1.log", TIMEOUT.format(r=1))
    (run / "node02.zip").write_bytes(buf.getvalue()[:40])
    files, warnings = discover(run)
    assert [f.display for f in files] == ["train.log"]
    assert any(w.startswith("node02.zip: not a readable zip archive") for w in warnings)


def test_the_unpacked_bytes_are_bounded(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archives, "MAX_UNPACKED", 1000)
    run = tmp_path / "run"
    run.mkdir()
    _tar(run / "big.tar", {"rank0.log": b"x" * 5000 + b"\n", "rank1.log": OWN.encode()}, mode="w")
    files, warnings = discover(run)
    assert sum(f.size for f in files) <= 1000
    assert any("cut at the" in w for w in warnings)


def test_one_huge_member_does_not_use_up_the_allowance_of_the_members_after_it(
        tmp_path, monkeypatch: pytest.MonkeyPatch, ruleset: RuleSet) -> None:
    """A node's tarball whose first member is a huge log of step lines: the rank3.log after it,
    which holds the failure, was never read (the allowance spent on the first; a hostile tester's
    1.1 GB rank0.log read "no incident"). Each member gets at most a share of it."""
    monkeypatch.setattr(archives, "MAX_UNPACKED", 1000)
    monkeypatch.setattr(archives, "MAX_MEMBER", 400)
    run = tmp_path / "run"
    run.mkdir()
    _tar(run / "node07.tar.gz", {"rank0.log": b"[rank0]: step 5 loss 2.3\n" * 200, "rank1.log": OWN.encode()})
    files, warnings = discover(run)
    assert sorted(f.display for f in files) == ["node07.tar.gz/rank0.log", "node07.tar.gz/rank1.log"], warnings
    assert any("rank0.log: only its first" in w for w in warnings)
    assert replay_path(run, ruleset).incidents[0].initiator.rank == 4  # (OWN is rank 4's error)


def test_a_replay_of_an_archive_itself(tmp_path, ruleset: RuleSet) -> None:
    _tar(tmp_path / "collected.tgz", {"node07/rank4.log": OWN.encode(), "node07/dmesg.log": XID.encode()})
    report = replay_path(tmp_path / "collected.tgz", ruleset)
    assert report.incidents[0].cause is Cause.GPU_HARDWARE
    assert report.incidents[0].initiator.node == "node07"


@pytest.mark.parametrize("name,pack", [("rank4.log.bz2", bz2.compress), ("rank4.log.xz", lzma.compress),
                                       ("rank4.log.gz", gzip.compress), ("rank4.log", lzma.compress)])
def test_bzip2_and_xz_logs_are_read(tmp_path, ruleset: RuleSet, name: str, pack) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / name).write_bytes(pack(("[rank4]: step 10 | loss 2.0\n" * 3 + OWN).encode()))
    (run / "rank5.log").write_text(TIMEOUT.format(r=5))
    report = replay_path(run, ruleset)
    assert report.incidents and report.incidents[0].initiator.rank == 4
    assert not report.warnings


def test_a_bzip2_log_cut_short_gives_what_it_holds(tmp_path, ruleset: RuleSet) -> None:
    run = tmp_path / "run"
    run.mkdir()
    text = "".join(f"[rank0]: step {i} | loss 2.0 | 800 ms/step\n" for i in range(80000)) + OWN
    data = bz2.compress(text.encode())
    (run / "rank0.log.bz2").write_bytes(data[: len(data) - 200])
    report = replay_path(run, ruleset)
    assert any("ends early" in w or "damaged" in w for w in report.warnings)


def test_an_old_rotated_kernel_logs_xid_is_the_nodes_history(tmp_path, ruleset: RuleSet) -> None:
    # a collected var/log tarball holds kern.log.2 with an Xid of ten days before the run; the run
    # itself failed with rank 3's CUDA out of memory
    run = tmp_path / "run"
    run.mkdir()
    (run / "rank3.log").write_text(
        "[rank3]:2024-11-26 03:10:00,000 INFO step 100 | loss 2.0 | 800 ms/step\n"
        "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of"
        " 79.19 GiB of which 1.12 GiB is free.\n")
    _tar(run / "var-log.tar.gz", {"var/log/kern.log.2": XID.replace("Nov 26", "Nov 16").encode()})
    report = replay_path(run, ruleset)
    assert report.incidents[0].cause is Cause.CUDA_OOM and report.incidents[0].initiator.rank == 3


def test_non_log_members_are_not_unpacked(tmp_path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    _tar(run / "bundle.tar.gz", {"model.safetensors": b"\0" * 4096, "loss.png": b"\x89PNG" + b"\0" * 64,
                                  "logs/rank0.log": OWN.encode(), "__MACOSX/logs/._rank0.log": b"\0\5\26\7"})
    files, _warnings = discover(run)
    assert [f.display for f in files] == ["bundle.tar.gz/logs/rank0.log"]
