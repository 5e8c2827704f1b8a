"""Inputs that try to make replay or the config loaders reach outside what they were given:
symbolic links out of the run directory, archives, FIFOs and devices, YAML bombs and huge or
deep documents."""

from __future__ import annotations

import io
import os
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from detector.errors import ConfigError, InputError
from detector.replay import ReplayOptions, replay_path
from detector.rules.engine import RuleSet
from detector.rules.loader import load_rules
from detector.sidecar.config import load_config
from detector.sources.runs import discover
from detector.support.yamlfile import MAX_BYTES, load_yaml_file

SECRET = "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered SECRET-OUTSIDE"
INSIDE = "[rank1]: 2026-11-29T12:00:00Z step 10 | loss 2.0\n"


@pytest.fixture()
def layout(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "rank_9.log").write_text(SECRET + "\n")
    run = tmp_path / "run"
    (run / "node01").mkdir(parents=True)
    (run / "node01" / "rank_1.log").write_text(INSIDE)
    return run, outside


def _texts(run: Path, rules: RuleSet, follow: bool = False) -> str:
    report = replay_path(run, rules, options=ReplayOptions(follow_symlinks=follow))
    return "\n".join(f.text for i in report.incidents for f in i.evidence) + "\n".join(report.warnings)


def test_symlinks_out_of_the_run_are_not_followed(layout: tuple[Path, Path], ruleset: RuleSet) -> None:
    run, outside = layout
    (run / "node01" / "rank_2.log").symlink_to(outside / "rank_9.log")  # a file link
    (run / "node02").symlink_to(outside)  # a directory link
    (run / "node01" / "chain.log").symlink_to(run / "node01" / "hop.log")  # link -> link -> outside
    (run / "node01" / "hop.log").symlink_to(outside / "rank_9.log")
    (run / "node01" / "rel.log").symlink_to(Path("..") / ".." / "outside" / "rank_9.log")  # relative
    files, warnings = discover(run)
    assert [f.display for f in files] == ["node01/rank_1.log"]
    assert sum("out of the run directory" in w for w in warnings) == 4
    assert "SECRET-OUTSIDE" not in _texts(run, ruleset)
    assert "SECRET-OUTSIDE" in _texts(run, ruleset, follow=True)  # ...unless asked


def test_a_file_swapped_for_a_link_after_discovery_is_not_read(layout: tuple[Path, Path], ruleset: RuleSet) -> None:
    """The race between listing the run and reading it: a job that can write the run folder
    swaps a listed log for a link to a file outside. The replay reads the file it listed (by
    device and inode) or nothing."""
    from detector.pipeline.scan import scan_file

    run, outside = layout
    files, _ = discover(run)
    victim = run / "node01" / "rank_1.log"
    victim.unlink()
    victim.symlink_to(outside / "rank_9.log")
    scan = scan_file(files[0], ruleset, year=2026)
    assert not scan.hits and scan.lines == 0
    assert any("replaced since the run was listed" in w for w in scan.warnings), scan.warnings
    # a file rewritten in place is still the file that was listed
    victim.unlink()
    victim.write_text(INSIDE)
    files, _ = discover(run)
    with open(victim, "a") as fh:
        fh.write("[rank1]: 2026-11-29T12:00:01Z step 11 | loss 2.0\n")
    assert scan_file(files[0], ruleset, year=2026).lines == 2


def test_links_inside_the_run_and_a_linked_run_directory(layout: tuple[Path, Path], tmp_path: Path) -> None:
    run, _ = layout
    (run / "node01" / "rank_3.log").symlink_to(run / "node01" / "rank_1.log")
    files, _ = discover(run)
    assert {f.display for f in files} == {"node01/rank_1.log", "node01/rank_3.log"}
    link = tmp_path / "run-link"
    link.symlink_to(run)  # the operator names the run through a link: that is asking
    files, _ = discover(link)
    assert {f.display for f in files} == {"node01/rank_1.log", "node01/rank_3.log"}


def test_fifos_devices_and_sockets_are_skipped_not_read(layout: tuple[Path, Path], ruleset: RuleSet) -> None:
    """A FIFO would block a reader forever; /dev/zero never ends. Neither is opened."""
    run, _ = layout
    os.mkfifo(run / "node01" / "rank_4.log")
    (run / "node01" / "rank_5.log").symlink_to("/dev/zero")
    (run / "node01" / "rank_6.log").symlink_to(run / "node01" / "rank_4.log")  # inside, to the FIFO
    started = time.monotonic()
    report = replay_path(run, ruleset, options=ReplayOptions(follow_symlinks=True))
    assert time.monotonic() - started < 10
    assert report.summary.files == 1
    assert any("not a regular file" in w for w in report.warnings)
    with pytest.raises(InputError):
        replay_path(run / "node01" / "rank_4.log", ruleset)


@pytest.mark.parametrize("kind", ["tar", "tgz", "zip"])
def test_archives_are_read_without_writing_outside(layout: tuple[Path, Path], tmp_path: Path, kind: str,
                                                  ruleset: RuleSet) -> None:
    """An archive in a run (or given as the run) is read in a folder of the process's own: a
    member named ``../../escaped.log`` is read there, as ``logs.../escaped.log``, and never
    written in the run, beside it or above it."""
    run, _ = layout
    payload = SECRET.encode() + b"\n"
    if kind == "zip":
        path = run / "logs.zip"
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("../../escaped.log", payload)
    else:
        path = run / ("logs.tar" if kind == "tar" else "logs.tar.gz")
        with tarfile.open(path, "w:gz" if kind == "tgz" else "w") as tf:
            info = tarfile.TarInfo("../../escaped.log")
            info.size = len(payload)
            tf.addfile(info, io.BytesIO(payload))
    before = {p for p in tmp_path.rglob("*")}
    files, _warnings = discover(run)
    assert f"{path.name}/escaped.log" in {f.display for f in files}
    assert all(path.name not in str(f.path) and str(run) not in str(f.path) for f in files if f.display.startswith(path.name))
    replay_path(path, ruleset)  # the archive itself as the run
    assert {p for p in tmp_path.rglob("*")} == before
    assert not list(tmp_path.parent.glob("escaped.log")) and not list(tmp_path.parent.parent.glob("escaped.log"))


# --- YAML -------------------------------------------------------------------------------------

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
rules: [*g]
"""


@pytest.mark.parametrize(("text", "message"), [
    (BILLION_LAUGHS, "anchors"),
    ("rules: !!python/object/apply:os.system ['touch /tmp/PWNED']\n", "constructor"),
    ("rules: !!python/name:os.system\n", "constructor"),
    ("a: &x 1\nrules: [*x]\n", "anchors"),
    ("<<: {a: 1}\nrules: []\n", "merge keys"),
    ("rules:" + " [" * 80 + " ]" * 80 + "\n", "nested more than"),
    ("rules: !!int nope\n", "invalid int value"),
    ("\x00rules: []\n", "invalid YAML"),
])
def test_yaml_bombs_and_unsafe_tags_refused_quickly(tmp_path: Path, text: str, message: str) -> None:
    """Rule files and config files: refused with a clear error naming the file, in seconds."""
    for name in ("rules.yaml", "config.yaml"):
        path = tmp_path / name
        path.write_text(text)
        started = time.monotonic()
        with pytest.raises(ConfigError) as info:
            load_yaml_file(path)
        assert time.monotonic() - started < 15
        assert message in info.value.format() and str(path) in info.value.format()
    problems = load_rules([], [tmp_path / "rules.yaml"]).problems
    assert problems and message in problems[0].format()
    with pytest.raises(ConfigError):
        load_config(tmp_path / "config.yaml", environ={})
    assert not Path("/tmp/PWNED").exists()


def test_documents_with_too_many_values_refused(tmp_path: Path) -> None:
    """A 4 MiB flow list (1.9 million values) took pure-Python PyYAML 150 s on this machine,
    stalling a rule reload; refused after MAX_NODES values instead."""
    path = tmp_path / "site.yaml"
    path.write_text("rules: [" + "1, " * 1_000_000 + "1]\n")
    started = time.monotonic()
    problems = load_rules([], [path]).problems
    assert time.monotonic() - started < 30
    assert problems and "more than 50000 values" in problems[0].format()


def test_huge_files_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("w") as fh:
        fh.write("rules:\n")
        fh.truncate(MAX_BYTES + 1)
    started = time.monotonic()
    with pytest.raises(ConfigError, match="larger than"):
        load_yaml_file(path)
    assert time.monotonic() - started < 1
