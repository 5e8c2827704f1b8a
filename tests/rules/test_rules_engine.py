"""Rule loading, validation and the one-scan matching engine."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.rules.loader import load_rules, shipped_rules_dir
from detector.rules.safety import backtracking_risk
from detector.rules.scanners import RePrefilter
from detector.types import Role, StreamKind

GOOD = """\
rules:
  - id: test.xid
    description: an Xid
    source: kernel
    role: initiator
    cause: gpu_hardware
    pattern: 'NVRM: Xid \\((?:PCI:)?(?P<pci>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2})\\): (?P<xid>79),'
    examples:
      - line: "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."
        fields: {pci: "0000:3b:00", xid: "79"}
    counterexamples:
      - "NVRM: Xid (PCI:0000:3b:00): 7, x"
  - id: test.exc
    description: generic exception
    role: initiator
    cause: python_exception
    fallback: true
    pattern: '^(?P<exc>[A-Za-z]\\w*Error): '
    examples:
      - line: "ValueError: bad"
  - id: test.closed
    description: gloo
    role: collateral
    pattern: 'Connection closed by peer'
    examples:
      - line: "RuntimeError: Connection closed by peer [1.2.3.4]:5"
"""


def _load(tmp_path: Path, text: str, name: str = "pack.yaml") -> tuple[list[str], list[str]]:
    (tmp_path / name).write_text(text)
    result = load_rules([tmp_path])
    return [r.id for r in result.rules], [p.format() for p in result.problems]


def test_shipped_packs_all_load() -> None:
    result = load_rules()
    assert not result.problems, "\n".join(p.format() for p in result.problems)
    assert len(result.rules) >= 60
    families = {r.id.split(".")[0] for r in result.rules}
    assert {"xid", "nccl", "torch", "cuda", "python", "system", "scheduler"} <= families
    files = {Path(r.path).name for r in result.rules}
    for f in files:
        assert (shipped_rules_dir() / f).read_text().startswith("# yaml-language-server: $schema=schema.json")


def test_trusted_shipped_packs_load_the_same_rules(tmp_path: Path) -> None:
    """replay trusts the package's own packs (their checks are made here and by `rules validate`)
    and loads the same rules; a user's layer over them is still checked in full."""
    checked, trusted = load_rules(), load_rules(trust_shipped=True)
    assert not trusted.problems
    assert [(r.id, r.pattern, r.cause, r.role, r.examples) for r in trusted.rules] == \
        [(r.id, r.pattern, r.cause, r.role, r.examples) for r in checked.rules]
    for a, b in zip(checked.rules, trusted.rules, strict=True):
        for line, _fields in a.examples:
            assert bool(a.regex.search(line)) == bool(b.regex.search(line)), a.id
    (tmp_path / "mine.yaml").write_text(GOOD.replace("fields: {pci: \"0000:3b:00\", xid: \"79\"}",
                                                     "fields: {pci: \"0000:3b:00\", xid: \"48\"}"))
    user = load_rules(user=[tmp_path], trust_shipped=True)
    assert [p.rule_id for p in user.problems] == ["test.xid"]
    assert "field 'xid'" in user.problems[0].format()


def test_a_trusted_pack_edited_into_a_broken_pattern_is_reported_not_raised(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed package's packs (detector/rulepacks) load without their checks; one edited in
    place so that a pattern no longer compiles is then loaded again with them, and the error
    names its file and rule."""
    import detector.rules.compile as compile_mod
    import detector.rules.loader as loader_mod
    from detector.errors import RuleLoadError

    packs = tmp_path / "rulepacks"
    packs.mkdir()
    (packs / "pack.yaml").write_text(GOOD.replace("pattern: 'Connection closed by peer'",
                                                  "pattern: 'Connection (closed by peer'"))
    monkeypatch.setattr(loader_mod, "shipped_rules_dir", lambda: packs)
    monkeypatch.setattr(compile_mod, "shipped_rules_dir", lambda: packs)
    with pytest.raises(RuleLoadError) as err:
        compile_mod.load_ruleset(cache=False, engine="re")
    assert "pack.yaml" in err.value.format() and "test.closed" in err.value.format()


def test_good_pack(tmp_path: Path) -> None:
    ids, problems = _load(tmp_path, GOOD)
    assert problems == []
    assert ids == ["test.xid", "test.exc", "test.closed"]


@pytest.mark.parametrize(
    ("mutation", "message"),
    [
        (("    source: kernel\n", "    source: kernel\n    colour: red\n"), "unknown key 'colour'"),
        (("cause: gpu_hardware", "cause: cosmic_rays"), "cause"),
        (("role: collateral", "role: bystander"), "role"),
        (("(?P<xid>79),", "(?P<xid>79,"), "does not compile"),
        (("'Connection closed by peer'", "'(a+)+$'"), "catastrophic backtracking"),
        (("'Connection closed by peer'", "'x*'"), "matches an empty line"),
        (('fields: {pci: "0000:3b:00", xid: "79"}', 'fields: {pci: "0000:3b:01"}'), "field 'pci'"),
        (('"NVRM: Xid (PCI:0000:3b:00): 7, x"', '"NVRM: Xid (PCI:0000:3b:00): 79, x"'), "counterexample 1 matches"),
        (("    role: initiator\n    cause: python_exception\n", "    role: initiator\n"), "needs a 'cause'"),
    ],
)
def test_bad_rules_name_file_line_and_id(tmp_path: Path, mutation: tuple[str, str], message: str) -> None:
    old, new = mutation
    assert old in GOOD
    _, problems = _load(tmp_path, GOOD.replace(old, new, 1))
    assert problems, "expected a problem"
    assert any(message in p for p in problems), problems
    assert all(p.startswith(str(tmp_path / "pack.yaml") + ":") for p in problems)


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(GOOD)
    (tmp_path / "b.yaml").write_text(GOOD)
    result = load_rules([tmp_path])
    assert sum("duplicate rule id" in p.format() for p in result.problems) == 3


def test_user_layer_overrides_and_disables(tmp_path: Path) -> None:
    shipped = tmp_path / "shipped"
    user = tmp_path / "user"
    shipped.mkdir()
    user.mkdir()
    (shipped / "p.yaml").write_text(GOOD)
    (user / "u.yaml").write_text(
        "rules:\n  - id: test.closed\n    disabled: true\n"
        "  - id: test.exc\n    description: stricter\n    role: initiator\n    cause: python_exception\n"
        "    pattern: '^ValueError: '\n    examples:\n      - line: 'ValueError: x'\n"
    )
    result = load_rules([shipped], [user])
    assert not result.problems
    ids = {r.id: r for r in result.rules}
    assert "test.closed" not in ids
    assert ids["test.exc"].pattern == "^ValueError: "
    origin = {o.rule_id: o for o in result.origins}
    assert origin["test.exc"].overrides == str(shipped / "p.yaml")
    assert origin["test.closed"].disabled


def test_fallback_only_when_nothing_else_matches(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(GOOD)
    rs = RuleSet(load_rules([tmp_path]).rules)
    assert [m.rule.id for m in rs.match("ValueError: x", StreamKind.RANK_LOG)] == ["test.exc"]
    hits = rs.match("RuntimeError: Connection closed by peer [x]:1", StreamKind.RANK_LOG)
    assert [m.rule.id for m in hits] == ["test.closed"]
    assert hits[0].rule.role is Role.COLLATERAL
    # a kernel rule also matches a kernel line pasted into a rank log
    assert [m.rule.id for m in rs.match("NVRM: Xid (PCI:0000:3b:00): 79, x", StreamKind.RANK_LOG)] == ["test.xid"]
    assert rs.match("NVRM: Xid (PCI:0000:3b:00): 79, x", StreamKind.KERNEL)[0].fields == (("pci", "0000:3b:00"), ("xid", "79"))


UNLESS = """
rules:
  - id: test.oom
    description: out of memory
    role: initiator
    cause: cuda_oom
    pattern: 'CUDA out of memory\\. Tried to allocate (?P<size>[0-9.]+ [KMG]iB)'
    unless: 'with exception: CUDA out of memory|Skipping batch'
    examples:
      - line: "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB"
    counterexamples:
      - "| WARNING: ran out of memory with exception: CUDA out of memory. Tried to allocate 1.50 GiB"
"""


def test_a_line_that_matches_unless_does_not_count(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(UNLESS)
    result = load_rules([tmp_path])
    assert not result.problems, [p.format() for p in result.problems]
    for engine in ("auto", "re"):
        rs = RuleSet([r for r in result.rules if r.id == "test.oom"], engine=engine)
        hits = rs.match("[rank2]: RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", StreamKind.RANK_LOG)
        assert [(m.rule.id, m.fields) for m in hits] == [("test.oom", (("size", "2.00 GiB"),))]
        caught = "| WARNING: ran out of memory with exception: CUDA out of memory. Tried to allocate 1.50 GiB"
        assert rs.match(caught, StreamKind.RANK_LOG) == []


def test_unless_holds_on_long_lines_too(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(UNLESS)
    rs = RuleSet([r for r in load_rules([tmp_path]).rules if r.id == "test.oom"])
    pad = " " + "x" * 5000  # past the length where the engine searches in linear time
    caught = "| WARNING: ran out of memory with exception: CUDA out of memory. Tried to allocate 1.50 GiB" + pad
    assert rs.match(caught, StreamKind.RANK_LOG) == []
    assert len(rs.match("CUDA out of memory. Tried to allocate 1.50 GiB" + pad, StreamKind.RANK_LOG)) == 1


def test_validate_checks_unless(tmp_path: Path) -> None:
    # an example that 'unless' excludes would never count; a broken 'unless' is named
    excluded = UNLESS.replace('"RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB"',
                              '"CUDA out of memory. Tried to allocate 20.00 MiB. Skipping batch"')
    ids, problems = _load(tmp_path, excluded)
    assert ids == [] and any("example 1 matches 'unless'" in p for p in problems)
    ids, problems = _load(tmp_path, UNLESS.replace("'with exception: CUDA out of memory|Skipping batch'", "'(unclosed'"))
    assert ids == [] and any("unless does not compile" in p for p in problems)
    ids, problems = _load(tmp_path, UNLESS.replace("'with exception: CUDA out of memory|Skipping batch'", "'(a+)+b'"))
    assert ids == [] and any("unless risks catastrophic backtracking" in p for p in problems)


def test_prefilters_agree_on_random_buffers() -> None:
    result = load_rules()
    rules = result.rules
    examples = [ex for r in rules for ex, _ in r.examples] + [c for r in rules for c in r.counterexamples]
    rng = random.Random(7)
    noise = ["step 12 | loss 2.1", "NCCL INFO Channel 00/32", "", "x" * 300, "[rank3]: hello", "💥 ünïcode"]
    lines = [rng.choice(examples + noise * 20) for _ in range(3000)]
    buf = ("\n".join(lines) + "\n").encode()
    pure = RePrefilter([r.pattern for r in rules])
    fast = RuleSet(rules)  # hyperscan where installed
    slow = RuleSet(rules, engine="re")

    def verified(rs: RuleSet) -> list[tuple[int, tuple[str, ...]]]:
        out = []
        for off in rs.candidates(buf, 0, len(buf)):
            end = buf.find(b"\n", off)
            ids = tuple(m.rule.id for m in rs.match(buf[off:end].decode(), StreamKind.RANK_LOG))
            ids += tuple(m.rule.id for m in rs.match(buf[off:end].decode(), StreamKind.KERNEL))
            if ids:
                out.append((off, ids))
        return out

    assert verified(fast) == verified(slow)
    assert list(pure.candidates(buf, 0, len(buf)))  # finds something


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\s*\w+)*x", r"(.*)*", r"(x+x+)+y",
                                     # identical or prefix-sharing branches: the parser factors the
                                     # common prefix out, leaving a choice among empty branches
                                     r"(x|x)*y", r"(?:ab|ab)*y", r"(?:a|ab)*c"])
def test_backtracking_patterns_refused(pattern: str) -> None:
    assert backtracking_risk(pattern)


@pytest.mark.parametrize("pattern", [r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*Error: ", r"(?:\d+,)*\d+", r"NVRM: Xid \((?:PCI:)?(?P<p>[0-9a-f:]+)\)",
                                     r"(?:foo|bar)*x", r"(a|b)*c"])
def test_linear_patterns_allowed(pattern: str) -> None:
    assert backtracking_risk(pattern) is None


def test_multi_line_window_rule_and_context(tmp_path: Path, ruleset: RuleSet) -> None:
    """The fallen-off-the-bus paragraph spans lines: the first names the GPU, a later one says
    what happened. A first line not followed by it is not a match. Traceback context is kept."""
    from detector.pipeline.scan import scan_file
    from detector.sources.runs import FileKind, LogFile

    kern = tmp_path / "dmesg.log"
    kern.write_text(
        "[  100.000001] NVRM: The NVIDIA GPU 0000:18:00.0 (PCI ID: 10de:2330)\n"
        "[  100.000002] NVRM: installed in this system has\n"
        "[  100.000003] NVRM: fallen off the bus and is not responding to commands.\n"
        "[  200.000001] NVRM: The NVIDIA GPU 0000:19:00.0 (PCI ID: 10de:2330)\n"
        "[  200.000002] NVRM: installed in this system is not supported by the driver.\n"
        "[  200.000003] NVRM: nothing else\n"
        "[  200.000004] NVRM: nothing else\n"
        "[  200.000005] NVRM: nothing else\n"
    )
    scan = scan_file(LogFile(kern, "dmesg.log", FileKind.KERNEL), ruleset, year=2026)
    hits = [(h.event.line, m.rule.id, dict(m.fields).get("pci")) for h in scan.hits for m in h.matches]
    assert (1, "xid.gpu_lost_paragraph", "0000:18:00") in hits
    assert not any(line == 4 for line, _, _ in hits)
    assert next(h.context for h in scan.hits if h.event.line == 1)[-1].endswith("fallen off the bus and is not responding to commands.")

    log = tmp_path / "rank_3.log"
    log.write_text(
        "Traceback (most recent call last):\n"
        '  File "train.py", line 10, in <module>\n'
        "    main()\n"
        "ValueError: bad shape\n"
    )
    scan = scan_file(LogFile(log, "rank_3.log", FileKind.RANK_LOG, rank=3), ruleset, year=2026)
    by_rule = {m.rule.id: h for h in scan.hits for m in h.matches}
    assert "python.uncaught_exception" in by_rule and by_rule["python.uncaught_exception"].event.line == 4
    assert any("ValueError: bad shape" in c for c in by_rule["python.traceback"].context)
