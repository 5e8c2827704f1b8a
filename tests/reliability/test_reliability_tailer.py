"""Files under the tailer: rotation by rename and by copytruncate at random moments, truncation,
deletion and re-creation, restarts from saved offsets, 1 MB lines -- every line written is seen
exactly once, in order (FileTailer, the sidecar's follower of one path). Then the whole sidecar
(``rankdoctor watch``) with a followed file replaced by a FIFO, a directory or a symlink, and
with its state directory on a full disk: the other files go on being read, without loss or
duplicates (``rankdoctor_lines_read``).

The long version (thousands of rotations, adversarial timing) is
``bench/bench_reliability.py rotate``; its figures are in RELIABILITY.md.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from detector.sidecar.sources.tailer import FileTailer
from tests.support.sidecar import SidecarProc
from tests.support.tailer import OPS, Torture


@pytest.mark.parametrize("seed", range(6))
def test_random_rotations_lose_and_duplicate_nothing(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    t = Torture(tmp_path / "rank_0.log", rng)
    for _ in range(400):
        t.step(rng.choice(OPS))
    t.finish()
    assert t.rotations > 50 and t.restarts > 10
    missing = sorted(set(t.written) - set(t.seen))
    dups = len(t.seen) - len(set(t.seen))
    assert not missing and not dups, f"{len(missing)} lost, {dups} duplicated of {len(t.written)}"
    assert t.seen == t.written  # and in order


def test_restart_while_a_renamed_file_has_unread_lines(tmp_path: Path) -> None:
    """Restarted after its file was renamed and written to: the renamed file (found by device
    and inode) is read to its end first, then the new file at the path."""
    t = Torture(tmp_path / "rank_0.log", random.Random(0))
    t.write(5)
    t.poll()
    os.rename(t.path, t.path.with_name("rank_0.log.1"))
    t.write(3)  # the writer has not reopened yet
    t._reopen()
    t.write(2)
    t.step("restart")  # pending is False: no catching up first
    t.finish()
    assert t.seen == t.written


def test_restart_while_a_copy_truncated_file_has_unread_lines(tmp_path: Path) -> None:
    """Restarted after a copytruncate: the copy (found by its first bytes and the bytes before
    the saved offset) gives the unread lines, then the file is read from its top."""
    t = Torture(tmp_path / "rank_0.log", random.Random(0))
    t.write(5)
    t.poll()
    t.write(3)
    shutil.copyfile(t.path, t.path.with_name("rank_0.log.1"))
    os.truncate(t.path, 0)
    t.step("restart")
    t.write(2)
    t.finish()
    assert t.seen == t.written


def test_copytruncate_of_a_file_empty_at_the_last_read(tmp_path: Path) -> None:
    """Empty at the last look, then written, copied and truncated: the copy, which was not
    there at the last look, holds the lines."""
    t = Torture(tmp_path / "rank_0.log", random.Random(0))
    t.poll()  # empty
    t.write(5)
    shutil.copyfile(t.path, t.path.with_name("rank_0.log.1"))
    os.truncate(t.path, 0)
    t.write(5)
    t.finish()
    assert t.seen == t.written


def test_a_new_file_with_the_same_first_bytes_is_read_from_its_top(tmp_path: Path) -> None:
    """A saved offset knows its file by its first bytes and the bytes before the offset, not by
    the first bytes alone (nor by inode, which ext4 reuses at once)."""
    path = tmp_path / "rank_0.log"
    banner = "=" * 300 + "\n"
    path.write_text(banner + "old 1\nold 2\n")
    tailer = FileTailer(path)
    tailer.read()
    saved = tailer.offset()
    tailer.close()
    path.unlink()
    path.write_text(banner + "new 1\nnew 2\nnew 3\n")  # a new attempt's log, same banner
    restarted = FileTailer(path, saved=saved)
    seen = b"".join(data for data, _ in restarted.read()).decode().splitlines()
    assert seen[1:] == ["new 1", "new 2", "new 3"]


def test_one_megabyte_lines(tmp_path: Path) -> None:
    """Lines of 1,000,000 bytes, written in pieces, through rotations: each arrives whole."""
    t = Torture(tmp_path / "rank_0.log", random.Random(1), line_bytes=1_000_000)
    for op in ["write", "poll", "rename", "write", "copytruncate", "write", "restart", "write", "recreate", "write"]:
        t.step(op)
    t.finish()
    assert t.seen == t.written
    assert max(len(s) for s in t.seen) > 900_000


# --- the whole sidecar ------------------------------------------------------------------------

LINE = "2026-11-29T12:00:00Z [rank{rank}]: step {i} | loss 1.0\n"


def lines_read(sc: SidecarProc) -> float:
    m = re.search(r"^rankdoctor_lines_read\{[^}]*\} ([0-9.e+]+)$", sc.metrics(), re.M)
    assert m, sc.metrics()
    return float(m.group(1))


def wait_lines(sc: SidecarProc, want: int, timeout: float = 30.0) -> float:
    deadline = time.monotonic() + timeout
    got = lines_read(sc)
    while time.monotonic() < deadline and got < want:
        time.sleep(0.2)
        got = lines_read(sc)
    time.sleep(1.0)  # and nothing more arrives (duplicates)
    return lines_read(sc)


@pytest.fixture()
def sidecars() -> Iterator[list[SidecarProc]]:
    started: list[SidecarProc] = []
    yield started
    for sc in started:
        sc.kill()


def _follow(tmp_path: Path, sidecars: list[SidecarProc], *extra: str) -> tuple[Path, SidecarProc]:
    logs = tmp_path / "logs"
    logs.mkdir()
    for r in range(3):
        (logs / f"rank_{r}.log").write_text("")
    sc = SidecarProc(tmp_path, ["--logs", str(logs), "--no-nvml", "--no-remediate", "--state", str(tmp_path / "state"),
                                *extra])
    sidecars.append(sc)
    return logs, sc


def test_files_replaced_by_a_fifo_a_directory_and_a_symlink(tmp_path: Path, sidecars: list[SidecarProc]) -> None:
    """Three followed paths become a FIFO, a directory and a symlink (to another followed file)
    while two ranks write: their lines are all read once, the link is not followed, the sidecar
    goes on, the bad paths are reported. (Until 04:10 on 2026-11-30 a FIFO or directory here took the whole logs source down
    and every restart re-read every file: 351 lines read of 200 written. Fixed in the sidecar.)"""
    logs, sc = _follow(tmp_path, sidecars)
    for r in (3, 4):
        (logs / f"rank_{r}.log").write_text("")
    time.sleep(2.5)  # the rescan picks the two new files up
    written = 0
    linked = 0
    with open(logs / "rank_0.log", "a") as f0, open(logs / "rank_1.log", "a") as f1:
        for i in range(150):
            f0.write(LINE.format(rank=0, i=i))
            f1.write(LINE.format(rank=1, i=i))
            f0.flush()
            f1.flush()
            written += 2
            if i == 30:
                for victim in ("rank_2.log", "rank_3.log", "rank_4.log"):
                    (logs / victim).unlink()
                os.mkfifo(logs / "rank_2.log")
                (logs / "rank_3.log").mkdir()
                (logs / "rank_4.log").symlink_to(logs / "rank_1.log")
            elif i > 30:
                linked += 1
            time.sleep(0.01)
    got = wait_lines(sc, written)
    # rank_4.log became a link (to rank_1.log): refused, not read through (O_NOFOLLOW)
    assert got == written, f"{got:.0f} lines read of {written} written ({linked} through the link)"
    err = sc.stderr()
    assert "rank_2.log" in err and "rank_3.log" in err  # the bad paths are reported
    assert re.search(r"rank_4\.log.*symbolic link", err), err
    assert sc.proc.poll() is None


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None, reason="needs root to mount a small tmpfs")
def test_state_disk_fills_while_offsets_are_written(tmp_path: Path, sidecars: list[SidecarProc]) -> None:
    """The state directory on a 512 KiB tmpfs that a filler file then fills: detection goes on
    (a CUDA error still becomes an incident), no line is read twice, the failure is visible."""
    state = tmp_path / "state"
    state.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(state)], check=True)
    try:
        logs, sc = _follow(tmp_path, sidecars)
        with open(logs / "rank_0.log", "a") as f0:
            for i in range(20):
                f0.write(LINE.format(rank=0, i=i))
            f0.flush()
            wait_lines(sc, 20, timeout=10)
            with open(state / "filler", "wb") as filler:  # the disk fills up
                try:
                    while True:
                        filler.write(b"\0" * 65536)
                        filler.flush()
                except OSError:
                    pass
            for i in range(20, 200):
                f0.write(LINE.format(rank=0, i=i))
            f0.flush()
            f0.write("2026-11-29T12:00:09Z [rank0]: RuntimeError: CUDA error: an illegal memory access was encountered\n")
        assert sc.wait_incidents(1, timeout=4)  # detection goes on (settle 0.5 s)
        got = wait_lines(sc, 201, timeout=5)
        assert got == 201, f"{got:.0f} lines read of 201 written"
        assert "disk is full" in sc.stderr()  # and the failure is visible
    finally:
        for sc in sidecars:
            sc.kill()
        subprocess.run(["umount", "-l", str(state)], check=False)
