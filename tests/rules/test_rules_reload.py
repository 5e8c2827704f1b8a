"""Hot reload for the sidecar: a valid change is swapped in whole, an invalid one is refused
with the same file:line messages as `rules validate`, counted, and the old rules stay."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from detector.errors import ConfigError
from detector.rules.engine import RuleSet
from detector.rules.reload import RuleReloader
from detector.types import StreamKind

SHIPPED = """\
rules:
  - id: t.oom
    description: CUDA OOM
    role: initiator
    cause: cuda_oom
    pattern: 'CUDA out of memory'
    examples: [{line: 'torch.OutOfMemoryError: CUDA out of memory.'}]
"""
USER_RULE = """\
rules:
  - id: site.gpu_lost
    description: the site's GPU monitor lost a GPU
    role: initiator
    cause: gpu_hardware
    pattern: 'gpumon: GPU lost'
    examples: [{line: 'gpumon: GPU lost'}]
"""
LINE = "gpumon: GPU lost"


def _write(path: Path, text: str) -> None:
    """Write and move the mtime forward, as an editor's save would (some filesystems keep
    mtimes to a second)."""
    old = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text)
    st = path.stat()
    if st.st_mtime_ns <= old:
        os.utime(path, ns=(st.st_atime_ns, old + 1_000_000))


@pytest.fixture()
def layers(tmp_path: Path) -> tuple[Path, Path]:
    shipped, user = tmp_path / "shipped", tmp_path / "user"
    shipped.mkdir()
    user.mkdir()
    (shipped / "pack.yaml").write_text(SHIPPED)
    (user / "base.yaml").write_text("rules: []\n")  # an empty user directory is an error
    return shipped, user


def _ids(rules: RuleSet) -> list[str]:
    return [r.id for r in rules.rules]


def test_valid_change_is_swapped_in(layers: tuple[Path, Path]) -> None:
    shipped, user = layers
    reloader = RuleReloader([user], shipped=[shipped], engine="re")
    first = reloader.current
    assert _ids(first) == ["t.oom"] and not reloader.changed()
    _write(user / "site.yaml", USER_RULE)
    assert reloader.changed()
    result = reloader.reload()
    assert isinstance(result, RuleSet) and reloader.current is result
    assert _ids(result) == ["t.oom", "site.gpu_lost"]
    assert result.match(LINE, StreamKind.RANK_LOG)[0].rule.id == "site.gpu_lost"
    assert (reloader.reloads, reloader.refusals) == (1, 0) and not reloader.changed()
    assert reloader.poll() is None


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (USER_RULE.replace("pattern: 'gpumon: GPU lost'", "pattern: '(a+)+$'"), ":6:5: site.gpu_lost: pattern risks catastrophic"),
        (USER_RULE.replace("    role", "\trole"), ":4:1: tab used for indentation"),
        (USER_RULE.replace("cause: gpu_hardware", "cause: gremlins"), ":5:5: site.gpu_lost: rules.cause"),
        (USER_RULE.replace("'gpumon: GPU lost'}", "'gpumon: GPU gone'}"), ":7:5: site.gpu_lost: example 1 does not match"),
        (USER_RULE.replace("'gpumon: GPU lost'\n", "'gpumon: (?i)GPU lost'\n"), ":6:5: site.gpu_lost: pattern does not compile"),
        ("", ": file is empty"),
    ],
)
def test_invalid_change_is_refused_and_counted(layers: tuple[Path, Path], bad: str, message: str) -> None:
    shipped, user = layers
    _write(user / "site.yaml", USER_RULE)
    reloader = RuleReloader([user], shipped=[shipped], engine="re")
    before = reloader.current
    _write(user / "site.yaml", bad)
    assert reloader.changed()
    result = reloader.reload()
    assert isinstance(result, list) and all(isinstance(p, ConfigError) for p in result)
    assert any(p.format().startswith(str(user / "site.yaml") + message) for p in result), [p.format() for p in result]
    assert reloader.current is before and _ids(reloader.current) == ["t.oom", "site.gpu_lost"]
    assert reloader.refusals == 1 and reloader.last_problems == tuple(result)
    assert not reloader.changed()  # not retried until the file changes again
    _write(user / "site.yaml", USER_RULE.replace("GPU lost", "GPU is lost"))
    accepted = reloader.poll()
    assert isinstance(accepted, RuleSet) and reloader.current is accepted
    assert reloader.refusals == 1 and reloader.reloads == 1 and reloader.last_problems == ()


def test_added_and_removed_files_are_changes(layers: tuple[Path, Path]) -> None:
    shipped, user = layers
    reloader = RuleReloader([user], shipped=[shipped], engine="re")
    (user / "notes.txt").write_text("not a rule file")
    assert not reloader.changed()
    _write(user / "site.yaml", USER_RULE)
    assert reloader.changed() and isinstance(reloader.reload(), RuleSet)
    (user / "site.yaml").unlink()
    assert reloader.changed()
    assert _ids(reloader.reload()) == ["t.oom"]  # type: ignore[arg-type]
    (user / "base.yaml").unlink()
    refused = reloader.reload()
    assert isinstance(refused, list) and "directory holds no .yaml rule files" in refused[0].format()


def test_refuses_to_start_without_valid_rules(layers: tuple[Path, Path]) -> None:
    shipped, user = layers
    _write(user / "site.yaml", "rules:\n  - id: a.k\n    colour: red\n")
    with pytest.raises(ConfigError, match="unknown key 'colour'"):
        RuleReloader([user], shipped=[shipped], engine="re")


def test_readers_see_one_whole_rule_set_during_reloads(layers: tuple[Path, Path]) -> None:
    shipped, user = layers
    reloader = RuleReloader([user], shipped=[shipped], engine="re")
    seen: set[tuple[str, ...]] = set()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            current = reloader.current
            seen.add(tuple(_ids(current)))
            current.match(LINE, StreamKind.RANK_LOG)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for n in range(6):
            _write(user / "site.yaml", USER_RULE if n % 2 == 0 else USER_RULE.replace("cause: gpu_hardware", "cause: x"))
            reloader.reload()
    finally:
        stop.set()
        reader.join()
    assert seen <= {("t.oom",), ("t.oom", "site.gpu_lost")}
    assert reloader.reloads == 3 and reloader.refusals == 3
