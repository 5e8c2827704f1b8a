"""The compiled rule set is cached between runs (detector.rules.cache): a second start reads no
rule file's YAML and compiles nothing, and gets the same rules; a changed rule file, another
engine or another version of the compiler is another key; a cache file that is unreadable,
corrupt, or in a directory others may write is not used; RANKDOCTOR_NO_CACHE turns it off."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from detector.rules import cache as rule_cache
from detector.rules import compile as rule_compile
from detector.rules.engine import RuleSet
from detector.types import StreamKind

RULE = """\
rules:
  - id: site.thing
    description: a site rule
    role: initiator
    cause: python_exception
    pattern: 'ThingError: (?P<what>\\w+)'
    examples:
      - line: 'ThingError: broken'
        fields: {what: broken}
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv(rule_cache.CACHE_DIR_ENV, str(where))
    monkeypatch.delenv(rule_cache.NO_CACHE_ENV, raising=False)
    return where


def _results(rs: RuleSet) -> list[object]:
    out = []
    for rule in rs.rules:
        for line, _ in rule.examples:
            for kind in StreamKind:
                out.append([(m.rule.id, m.fields) for m in rs.match(line, kind)])
    return out


def _no_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("the rule files were loaded again")

    monkeypatch.setattr(rule_compile, "load_rules", refuse)


def test_second_start_comes_from_the_cache(cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site.yaml"
    site.write_text(RULE)
    first = rule_compile.load_ruleset([site])
    entries = list(cache_dir.glob("rules-*.pickle"))
    assert len(entries) == 1
    assert (os.stat(entries[0]).st_mode & 0o777) == 0o600
    _no_loading(monkeypatch)
    second = rule_compile.load_ruleset([site])
    assert [r.id for r in second.rules] == [r.id for r in first.rules]
    assert second.engine == first.engine and second.selector.engine == first.selector.engine
    assert _results(second) == _results(first)
    assert second.match("ThingError: cached", StreamKind.RANK_LOG)[0].fields == (("what", "cached"),)


def test_a_changed_rule_file_is_loaded_and_checked_again(cache_dir: Path, tmp_path: Path) -> None:
    site = tmp_path / "site.yaml"
    site.write_text(RULE)
    rule_compile.load_ruleset([site])
    site.write_text(RULE.replace("ThingError", "OtherError"))
    rs = rule_compile.load_ruleset([site])
    assert rs.match("OtherError: x", StreamKind.RANK_LOG)
    assert len(list(cache_dir.glob("rules-*.pickle"))) == 2
    site.write_text(RULE.replace("broken", "not this"))  # the example no longer matches its field
    with pytest.raises(Exception, match="field 'what'"):
        rule_compile.load_ruleset([site])


def test_engine_and_compiler_source_are_in_the_key(tmp_path: Path) -> None:
    layers = [[tmp_path / "a.yaml"]]
    layers[0][0].write_text(RULE)
    assert rule_cache.cache_key(layers, "auto") != rule_cache.cache_key(layers, "re")
    assert rule_cache.cache_key(layers, "auto") == rule_cache.cache_key(layers, "auto")
    assert any(p.name == "engine.py" for p in rule_cache._CODE) and any(p.name == "types.py" for p in rule_cache._CODE)


@pytest.mark.parametrize("damage", [b"", b"not a pickle", pickle.dumps(("another", "thing", 1))])
def test_a_damaged_entry_is_ignored_and_written_again(cache_dir: Path, tmp_path: Path, damage: bytes) -> None:
    site = tmp_path / "site.yaml"
    site.write_text(RULE)
    reference = rule_compile.load_ruleset([site])
    (entry,) = cache_dir.glob("rules-*.pickle")
    entry.write_bytes(damage)
    rs = rule_compile.load_ruleset([site])
    assert _results(rs) == _results(reference)
    assert entry.stat().st_size > 1000  # rewritten


def test_an_entry_of_another_key_is_not_used(cache_dir: Path, tmp_path: Path) -> None:
    site = tmp_path / "site.yaml"
    site.write_text(RULE)
    rule_compile.load_ruleset([site])
    (entry,) = cache_dir.glob("rules-*.pickle")
    _fmt, _key, ruleset = pickle.loads(entry.read_bytes())
    assert rule_cache.load("0" * 40) is None
    (cache_dir / f"rules-{'0' * 40}.pickle").write_bytes(pickle.dumps((rule_cache.FORMAT, "1" * 40, ruleset)))
    os.chmod(cache_dir / f"rules-{'0' * 40}.pickle", 0o600)
    assert rule_cache.load("0" * 40) is None  # the file claims another key


def test_a_directory_others_may_write_is_not_used(cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache_dir.mkdir(mode=0o777)
    os.chmod(cache_dir, 0o777)
    site = tmp_path / "site.yaml"
    site.write_text(RULE)
    rule_compile.load_ruleset([site])
    assert not list(cache_dir.glob("rules-*.pickle"))
    os.chmod(cache_dir, 0o700)
    rule_compile.load_ruleset([site])
    (entry,) = cache_dir.glob("rules-*.pickle")
    os.chmod(entry, 0o666)  # a file others may write: not trusted
    key = entry.name[len("rules-"):-len(".pickle")]
    assert rule_cache.load(key) is None


def test_no_cache_when_turned_off(cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(rule_cache.NO_CACHE_ENV, "1")
    site = tmp_path / "site.yaml"
    site.write_text(RULE)
    rule_compile.load_ruleset([site])
    assert not cache_dir.exists()


def test_a_user_path_that_does_not_exist_is_still_an_error(cache_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no such file"):
        rule_compile.load_ruleset([tmp_path / "missing.yaml"])


def test_rule_sets_pickle_for_every_engine() -> None:
    from detector.rules.loader import load_rules

    rules = load_rules().rules
    for engine in ("auto", "re"):
        rs = RuleSet(rules, engine=engine)
        back = pickle.loads(pickle.dumps(rs))
        assert back.engine == rs.engine and back.selector.engine == rs.selector.engine
        assert _results(back) == _results(rs)
        buf = b"".join(line.encode() + b"\n" for r in rules for line, _ in r.examples)
        assert list(back.candidate_lines(buf, 0, len(buf))) == list(rs.candidate_lines(buf, 0, len(buf)))


def test_no_home_turns_the_cache_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A container run as a user id with no password entry and no HOME (docker run --user 12345):
    pathlib cannot tell a home, and the cache is off rather than the command raising."""
    from detector.rules import cache as cache_mod

    for name in (cache_mod.NO_CACHE_ENV, cache_mod.CACHE_DIR_ENV, "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(name, raising=False)

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert cache_mod.cache_dir() is None
    monkeypatch.setenv("XDG_CACHE_HOME", "/var/cache")
    assert cache_mod.cache_dir() == Path("/var/cache/rankdoctor")
