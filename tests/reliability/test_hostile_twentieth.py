"""Hostile inputs found in the twentieth session's review: FIFOs and devices where a file is
expected (the sidecar froze in open() and then ignored SIGTERM; rule, config and incident files
were read without a bound), folders nested deeper than os.walk's recursion, rule patterns nested
deeper than Python's regex parser, an empty RUN, extreme COLUMNS and RANKDOCTOR_JOBS, and runs of
which nothing at all could be read.

Anything that could block is run in a thread joined with a timeout; a FIFO that a reader still
waits on is then opened for writing and closed, so that no thread is left behind."""

from __future__ import annotations

import bz2
import contextlib
import lzma
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from detector.errors import ConfigError, InputError
from detector.replay import ReplayOptions, replay_path
from detector.rules.engine import RuleSet
from detector.rules.loader import load_rules
from detector.sidecar.model import Chunk, Inbox
from detector.sidecar.sources.logs import LogFollower
from detector.sidecar.state import SidecarStore
from detector.sources.runs import classify, discover
from detector.support.compressed import open_log

ERROR = "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
STEP = "[rank0]: step 1 | loss 2.0\n"
RULE = """rules:
  - id: user.hostile_twentieth
    description: a test rule
    source: rank_log
    role: initiator
    cause: illegal_memory_access
    severity: error
    pattern: 'PATTERN'
    examples:
      - line: 'boom ZZZ'
"""
DEADLINE_S = 5.0


def _within(fn: Callable[[], Any], fifos: tuple[Path, ...] = ()) -> Any:
    """``fn()``'s result, asserted to come within :data:`DEADLINE_S`; its exception re-raised.
    A reader still blocked on one of ``fifos`` is released (the FIFO opened for writing and
    closed: it reads the end) before the assertion fails."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # re-raised in the test's thread
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(DEADLINE_S)
    blocked = thread.is_alive()
    if blocked:
        for fifo in fifos:
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(DEADLINE_S)
    assert not blocked, f"still running after {DEADLINE_S} s (blocked on a FIFO?)"
    if "error" in out:
        raise out["error"]
    return out.get("value")


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _chunk_lines(items: list[object]) -> list[str]:
    return [x.decode() for i in items if isinstance(i, Chunk) for x in i.data.split(b"\n")[:-1]]


# -- 1. the sidecar and the file readers skip FIFOs ---------------------------------------------


def test_the_sidecar_rescan_skips_a_fifo_and_still_reads_the_rank_log(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "rank_0.log").write_text(STEP)
    fifo = _fifo(logs / "rank_1.log")
    warnings: list[str] = []
    follower = LogFollower([str(logs)], node=None, store=SidecarStore(None), poll_s=0.0, check_s=0.0,
                           observer_factory=None, warn=warnings.append)
    inbox = Inbox()
    try:
        _within(lambda: follower.start(inbox), (fifo,))
        _within(lambda: follower.poll(time.time()), (fifo,))
        late = _fifo(logs / "rank_2.log")  # made after start-up: the next rescan meets it
        _within(lambda: follower.poll(time.time() + 10), (fifo, late))
        seen = _chunk_lines(inbox.drain(0.0))
    finally:
        follower.close()
    assert seen == [STEP.strip()]
    assert [f.path.name for f in follower.files] == ["rank_0.log"]
    refused = [w for w in warnings if "not a regular file" in w]
    assert len(refused) == 2 and "rank_1.log" in refused[0] and "rank_2.log" in refused[1]


def test_classify_and_open_log_refuse_a_fifo_without_opening_it(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path / "rank_1.log")
    assert _within(lambda: classify(fifo, tmp_path), (fifo,)) is None
    with pytest.raises(OSError, match="not a regular file"):
        _within(lambda: open_log(fifo, False), (fifo,))


# -- 2. rule, config and incident files that are devices or FIFOs --------------------------------


def test_rule_config_and_incident_files_that_are_fifos_or_devices_are_refused(tmp_path: Path) -> None:
    from detector.remediation.config import load_remediation_config
    from detector.remediation.incidentfile import read_incident
    from detector.sidecar.config import load_config

    fifo = _fifo(tmp_path / "rules.yaml")
    result = _within(lambda: load_rules(user=[fifo]), (fifo,))
    assert [p.format() for p in result.problems] == [f"{fifo}: is a named pipe (FIFO), not a regular file"]
    with pytest.raises(ConfigError, match="named pipe"):
        _within(lambda: load_config(fifo, environ={}), (fifo,))
    with pytest.raises(ConfigError, match="named pipe"):
        _within(lambda: load_remediation_config(fifo, environ={}), (fifo,))
    with pytest.raises(InputError, match="named pipe"):
        _within(lambda: read_incident(fifo), (fifo,))
    from detector.support.userfile import read_user_file, refused

    zero = Path("/dev/zero")
    if zero.exists():  # a device: its size says 0, its bytes never end
        assert refused(zero) == "is a character device, not a regular file"
        with pytest.raises(InputError, match="character device"):
            read_user_file(zero, 1 << 20)


def test_cli_refuses_a_fifo_named_as_rules_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from detector.cli.main import main

    monkeypatch.setenv("RANKDOCTOR_CACHE_DIR", str(tmp_path / "cache"))
    log = tmp_path / "rank3.log"
    log.write_text(ERROR)
    fifo = _fifo(tmp_path / "rules.yaml")
    assert _within(lambda: main(["replay", "--rules", str(fifo), str(log)]), (fifo,)) == 1
    err = capsys.readouterr().err
    assert err.strip() == f"rankdoctor: error: {fifo}: is a named pipe (FIFO), not a regular file"
    assert _within(lambda: main(["rules", "validate", "--no-shipped", str(fifo)]), (fifo,)) == 1
    assert "named pipe (FIFO), not a regular file" in capsys.readouterr().out


def test_rules_from_a_pipe_handed_over_as_a_path_are_read_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``--rules <(cat rules.yaml)``: the rule cache's key and the loader both read the file; a
    pipe gives its bytes once ("file is empty" the second time)."""
    from detector.cli.main import main

    monkeypatch.setenv("RANKDOCTOR_CACHE_DIR", str(tmp_path / "cache"))
    log = tmp_path / "rank3.log"
    log.write_text("[rank3]: boom ZZZ\n")
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, RULE.replace("PATTERN", "boom ZZZ").encode())
        os.close(write_end)
        code = _within(lambda: main(["replay", "--format", "json", "--rules", f"/dev/fd/{read_end}", str(log)]))
    finally:
        os.close(read_end)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert '"user.hostile_twentieth"' in out


# -- 3. folders nested deeper than os.walk recurses ------------------------------------------------


@contextlib.contextmanager
def _chain(root: Path, depth: int, logs: dict[int, str]) -> Iterator[None]:
    """``root/d/d/...`` ``depth`` folders deep (made through folder descriptors: the path may pass
    PATH_MAX), ``logs[n]`` written as rank3.log ``n`` levels down; removed bottom up afterwards
    (shutil.rmtree recurses too)."""
    root.mkdir()
    fds = [os.open(root, os.O_RDONLY)]
    try:
        for level in range(depth + 1):
            if level in logs:
                fd = os.open("rank3.log", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fds[-1])
                os.write(fd, logs[level].encode())
                os.close(fd)
            if level < depth:
                os.mkdir("d", dir_fd=fds[-1])
                fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
        yield
    finally:
        for level in range(len(fds) - 1, -1, -1):
            with contextlib.suppress(FileNotFoundError):
                os.unlink("rank3.log", dir_fd=fds[level])
            if level < len(fds) - 1:
                os.rmdir("d", dir_fd=fds[level])
            os.close(fds[level])


def test_a_tree_1500_folders_deep_is_read_to_a_bounded_depth_with_a_warning(tmp_path: Path, ruleset: RuleSet) -> None:
    run = tmp_path / "run"
    with _chain(run, 1500, {0: STEP, 200: ERROR, 1500: ERROR.replace("rank3", "rank7")}):
        files, warnings = discover(run)
        assert [f.display.count("/") for f in files] == [0, 200]  # the top's log and the one 200 deep
        assert len(warnings) == 1 and "folders nested deeper than 256 levels" in warnings[0]
        report = replay_path(run, ruleset)
        assert [(i.cause.value, i.initiator.rank) for i in report.incidents] == [("illegal_memory_access", 3)]
        notes: list[str] = []
        follower = LogFollower([str(run)], node=None, store=SidecarStore(None), poll_s=0.0, check_s=0.0,
                               warn=notes.append)  # (watchdog's own watch of the tree recurses too)
        inbox = Inbox()
        try:
            follower.start(inbox)
            follower.poll(time.time())
            seen = _chunk_lines(inbox.drain(0.0))
        finally:
            follower.close()
        assert sorted(seen) == sorted([STEP.strip(), ERROR.strip()])
        assert any("folders nested deeper than 256 levels" in n for n in notes)


# -- 4. rule patterns nested deeper than the regex parser recurses --------------------------------


def test_a_pattern_of_600_nested_groups_is_that_rules_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from detector.cli.main import main

    deep = "(" * 600 + "boom ZZZ" + ")" * 600
    rules = tmp_path / "nested.yaml"
    rules.write_text(RULE.replace("PATTERN", deep))
    result = load_rules([], [rules])
    assert len(result.problems) == 1
    assert result.problems[0].rule_id == "user.hostile_twentieth" and "nests too deeply" in result.problems[0].detail
    unless = tmp_path / "unless.yaml"  # ('unless' holds 1,024 characters at most)
    unless.write_text(RULE.replace("PATTERN", "boom ZZZ") + f"    unless: '{'(' * 510 + 'x' + ')' * 510}'\n")
    assert ["unless: pattern nests too deeply" in p.detail for p in load_rules([], [unless]).problems] == [True]
    assert main(["rules", "validate", "--no-shipped", str(rules)]) == 1
    out, err = capsys.readouterr()
    assert "nests too deeply" in out and "Traceback" not in out + err and len(out.splitlines()) < 10


# -- 5. an empty RUN -------------------------------------------------------------------------------


def test_an_empty_run_argument_is_an_error_not_the_current_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from detector.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "rank3.log").write_text(ERROR)
    assert main(["replay", ""]) == 1
    captured = capsys.readouterr()
    assert "rankdoctor: error: RUN is empty" in captured.err and not captured.out


# -- 6. COLUMNS ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("columns", "width"), [("0", 60), ("5", 60), ("1000", 240)])
def test_the_text_report_keeps_a_sane_width_whatever_columns_says(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  columns: str, width: int) -> None:
    from detector.cli.main import _text_console, main

    monkeypatch.setenv("COLUMNS", columns)
    assert _text_console().width == width
    log = tmp_path / "rank3.log"
    log.write_text(STEP + ERROR)
    assert main(["replay", "--no-progress", str(log)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and lines[0].startswith("VERDICT: illegal_memory_access on rank 3")
    assert 60 <= max(len(line) for line in lines) <= 240


# -- 7. RANKDOCTOR_JOBS ----------------------------------------------------------------------------


def test_rankdoctor_jobs_is_kept_to_the_cores_and_a_bad_value_is_said(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from detector import replay

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    monkeypatch.setenv(replay.JOBS_ENV, "99999")
    assert replay._jobs(100_000, 1 << 40) <= cores
    assert replay._jobs(1, 1 << 40) == 1
    monkeypatch.setenv(replay.JOBS_ENV, "abc")
    assert replay._jobs(100_000, 1) == 1  # ignored: a small run is read in one process
    err = capsys.readouterr().err
    assert "RANKDOCTOR_JOBS='abc'" in err and "ignored" in err


# -- 8. nothing readable at all --------------------------------------------------------------------


def test_a_run_of_which_nothing_could_be_read_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from detector.cli.main import main

    zst = tmp_path / "rank3.log.zst"
    zst.write_bytes(b"\x28\xb5\x2f\xfd" + os.urandom(64))
    assert main(["replay", "--no-progress", str(zst)]) == 1
    out, err = capsys.readouterr()
    assert not out and "nothing could be read" in err and "compressed with an unsupported format (zstd)" in err
    run = tmp_path / "run"
    run.mkdir()
    (run / "rank0.log").write_bytes(os.urandom(20_000).replace(b"\n", b"\0"))
    (run / "rank1.log.bz2").write_bytes(bz2.compress(ERROR.encode())[:12])  # (cut before any of its text)
    assert main(["replay", "--no-progress", str(run)]) == 1
    err = capsys.readouterr().err
    assert "rank0.log: binary data" in err and "rank1.log.bz2: cannot open (a bzip2 stream cut short" in err
    xz = tmp_path / "rank3.log.xz"  # (xz and bzip2 are read, as gzip is)
    xz.write_bytes(lzma.compress(ERROR.encode()))
    assert main(["replay", "--no-progress", str(xz)]) == 0
    capsys.readouterr()
    empty = tmp_path / "empty.log"  # read, and nothing in it: no incident
    empty.write_text("")
    assert main(["replay", "--no-progress", str(empty)]) == 0
    assert capsys.readouterr().out.startswith("VERDICT: no incident")


def test_unsupported_compression_is_named_and_the_library_still_reports(tmp_path: Path, ruleset: RuleSet) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "rank3.log").write_text(ERROR)
    (run / "rank1.log.zst").write_bytes(b"\x28\xb5\x2f\xfd" + os.urandom(64))
    (run / "logs.tar.gz").write_bytes(b"\x1f\x8b\x08\x00" + os.urandom(64))
    report = replay_path(run, ruleset)
    assert report.incidents
    assert "rank1.log.zst: compressed with an unsupported format (zstd), skipped" in report.warnings
    assert any(w.startswith("logs.tar.gz: not a readable tar archive") for w in report.warnings)
    alone = replay_path(run / "rank1.log.zst", ruleset)  # the library's caller decides (the CLI: an error)
    assert not alone.incidents and any("unsupported format (zstd)" in w for w in alone.warnings)
    with pytest.raises(InputError, match="nothing could be read"):
        replay_path(run / "rank1.log.zst", ruleset, options=ReplayOptions(unread_is_error=True))
