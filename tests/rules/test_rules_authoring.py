"""Rule authoring, as library calls: validation beyond the loader, linear-time checks, explain
with near misses, coverage with Drain3 clusters, and stubs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from detector.authoring.coverage import Cluster, coverage, looks_like_error, template_miner
from detector.authoring.explain import explain_line, literal_runs, match_log, pattern_atoms
from detector.authoring.stubs import make_stubs, stub_pattern, stubs_yaml, template_pattern, yaml_str
from detector.authoring.validate import re_prefilter_problem, rule_rows, validate_rules
from detector.rules.engine import RuleSet
from detector.rules.linearity import superlinear_risk
from detector.rules.loader import load_rules
from detector.rules.safety import backtracking_risk
from detector.support.yamlfile import loads_yaml
from detector.types import StreamKind
from tests.support.paths import REPLAY_LOGS

PACK = """\
rules:
  - id: t.xid
    description: an Xid
    source: kernel
    role: initiator
    cause: gpu_hardware
    pattern: 'NVRM: Xid \\(PCI:(?P<pci>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2})\\): (?P<xid>79), GPU has fallen off the bus'
    examples:
      - line: 'NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.'
  - id: t.exc
    description: any exception
    role: initiator
    cause: python_exception
    fallback: true
    pattern: '^(?P<exc>[A-Za-z]\\w*Error): '
    examples: [{line: 'ValueError: x'}]
  - id: t.oom
    description: CUDA OOM
    source: rank_log
    role: initiator
    cause: cuda_oom
    pattern: 'CUDA out of memory\\. Tried to allocate (?P<size>[0-9.]+ [KMG]iB)'
    examples: [{line: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'}]
  - id: t.ib
    description: IB error with its status on the next line
    role: collateral
    pattern: 'NET/IB : Got completion with error'
    window: {next: 'status=(?P<status>\\d+)', within: 2}
    examples: [{line: 'NET/IB : Got completion with error 12'}]
"""


@pytest.fixture()
def pack_rules(tmp_path: Path) -> RuleSet:
    (tmp_path / "pack.yaml").write_text(PACK)
    result = load_rules([tmp_path])
    assert not result.problems, [p.format() for p in result.problems]
    return RuleSet(result.rules, engine="re")


# -- linear time ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern",
    [r"(.*a){20}", r"(.*?,){11}P", r"\s*\s*\s*x", r".*.*=.*;", r"(?:\S+\s*){3}x",
     # (counted repeats of varying count inside one: a hostile tester's rule that passed
     # validation and took 20 s on a 200-character line)
     r"(?:[a-z]{1,40} ?){1,40}FAIL", r"(?:\w{2,30}-?){0,20}x",
     # (a reviewer: an inner count that varies a little, and overlapping branches, in a counted repeat)
     r"(?:[a-z]{1,3} ?){1,40}FAIL", r"(?:[a-z]{1,3}){1,40}FAIL", r"(?:a|a?){1,40}FAIL"],
)
def test_superlinear_shapes_the_backtracking_check_misses(pattern: str) -> None:
    assert backtracking_risk(pattern) is None  # what the loader alone lets through
    assert superlinear_risk(pattern)


@pytest.mark.parametrize("pattern", [r"(a|aa)+$", r"(?:a|b|ab)*c"])
def test_overlapping_alternations_both_checks_catch(pattern: str) -> None:
    """(the loader's check missed these while the parser's factored prefix hid the alternation)"""
    assert backtracking_risk(pattern)
    assert superlinear_risk(pattern)


@pytest.mark.parametrize(
    "pattern",
    [r"(?:foo|bar)+", r"(ab?)+", r"(?:\S+\s+){3}", r"(?:, \w+)*x", r"foo.*bar.*baz", r"(\d+\.){3}\d+", r"(?:[0-9a-f]{2}:){3}",
     r"(?:[A-Za-z_][A-Za-z0-9_]{0,63}\.){1,10}x", r"(?:\d{1,3}\.){3}\d{1,3}", r"(?:[a-z]{1,40} ){1,3}x",
     r"bytes: (?:0x[0-9a-f]{1,16} ?){1,16}"],  # (the mandatory "x" fixes where an iteration begins)
)
def test_linear_patterns_pass(pattern: str) -> None:
    assert superlinear_risk(pattern) is None


def test_no_shipped_pattern_is_flagged(re_ruleset: RuleSet) -> None:
    flagged = {r.id: superlinear_risk(r.pattern) for r in re_ruleset.rules}
    assert not {k: v for k, v in flagged.items() if v}


def test_re_prefilter_problems() -> None:
    assert re_prefilter_problem("(?i)gpu reset") is None  # leading flags are scoped by the prefilter
    assert "scoped group" in (re_prefilter_problem("gpu (?i)reset") or "")
    assert "backreferences" in (re_prefilter_problem(r"(?P<a>x)-(?P=a)") or "")
    assert re_prefilter_problem("(?i:gpu) reset") is None


# -- validate beyond the loader ----------------------------------------------------------------


def test_disabled_rules_are_checked(tmp_path: Path) -> None:
    shipped, user = tmp_path / "shipped", tmp_path / "user"
    shipped.mkdir()
    user.mkdir()
    (shipped / "pack.yaml").write_text(PACK)
    (user / "u.yaml").write_text(
        "rules:\n  - id: t.oom\n    disabled: true\n    pattern: 'x'\n"
        "  - id: t.nope\n    disabled: true\n"
    )
    checked = validate_rules([shipped], [user], hyperscan=False)
    errors = [e.format() for e in checked.errors]
    warnings = [w.format() for w in checked.warnings]
    assert any(e.startswith(f"{user / 'u.yaml'}:3:5: t.oom: a rule with 'disabled: true' holds only") for e in errors), errors
    assert warnings == [
        f"{user / 'u.yaml'}:6:5: t.nope: warning: disables an id that no rule below this layer has (a typo?)",
    ]
    second = tmp_path / "second.yaml"
    second.write_text(PACK.split("  - id: t.exc")[0])
    user2 = tmp_path / "user2"
    user2.mkdir()
    (user2 / "again.yaml").write_text(PACK.split("  - id: t.exc")[0])
    checked = validate_rules([shipped], [second, user2], hyperscan=False)
    assert [w.format() for w in checked.warnings] == [
        f"{user2 / 'again.yaml'}:2:5: t.xid: warning: replaces the rule with the same id in {second}, an earlier user layer"]


def test_a_schema_error_does_not_hide_the_other_rules_problems(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(
        PACK + "  - id: t.bad\n    colour: red\n"
        "  - id: t.redos\n    description: d\n    role: context\n    pattern: '(a|aa)+$'\n    examples: [{line: aaa}]\n"
        "  - id: t.wrong\n    description: d\n    role: context\n    pattern: 'abc'\n    examples: [{line: abd}]\n"
    )
    checked = validate_rules([tmp_path], hyperscan=False)
    text = "\n".join(e.format() for e in checked.errors)
    assert "t.bad: unknown key 'colour'" in text
    assert "t.redos: pattern risks super-linear matching" in text or "t.redos: pattern risks catastrophic backtracking" in text
    assert "t.wrong: example 1 does not match: 'abd'" in text
    lines = [e.line or 0 for e in checked.errors]
    assert lines == sorted(lines)


def test_rule_rows_show_origin(tmp_path: Path) -> None:
    shipped, user = tmp_path / "shipped", tmp_path / "user"
    shipped.mkdir()
    user.mkdir()
    (shipped / "pack.yaml").write_text(PACK)
    (user / "u.yaml").write_text(
        "rules:\n  - id: t.oom\n    disabled: true\n"
        "  - id: t.exc\n    description: narrower\n    role: initiator\n    cause: python_exception\n"
        "    pattern: '^ValueError: '\n    examples: [{line: 'ValueError: x'}]\n"
    )
    rows = {r.id: r for r in rule_rows(load_rules([shipped], [user]))}
    assert rows["t.xid"].status == "active" and rows["t.xid"].file == str(shipped / "pack.yaml")
    assert rows["t.exc"].status == "override" and rows["t.exc"].overrides == str(shipped / "pack.yaml")
    assert rows["t.oom"].status == "disabled" and rows["t.oom"].line == 2


# -- explain and test ----------------------------------------------------------------------------


def test_explain_matches_fields_and_notes(pack_rules: RuleSet) -> None:
    ex = explain_line("[rank3]: RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", pack_rules.rules)
    assert ex.rank == 3 and ex.kind is StreamKind.RANK_LOG and ex.kind_guessed
    hits = {h.rule.id: h for h in ex.hits}
    assert hits["t.oom"].counts and hits["t.oom"].fields == (("size", "2.00 GiB"),)
    assert not hits["t.exc"].counts and "fallback" in hits["t.exc"].note

    ex = explain_line("[ 12.5] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", pack_rules.rules)
    assert ex.kind is StreamKind.KERNEL and [h.rule.id for h in ex.hits if h.counts] == ["t.xid"]
    # a kernel line pasted into a rank log still counts; a rank-log rule never counts in a kernel log
    ex = explain_line("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", pack_rules.rules, kind=StreamKind.RANK_LOG)
    assert ex.hits[0].rule.id == "t.xid" and ex.hits[0].counts
    ex = explain_line("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", pack_rules.rules, kind=StreamKind.KERNEL)
    oom = next(h for h in ex.hits if h.rule.id == "t.oom")
    assert not oom.counts and "only for rank_log lines" in oom.note

    ex = explain_line("NET/IB : Got completion with error 12", pack_rules.rules)
    assert "next 2 lines" in ex.hits[0].note


def test_explain_near_misses_say_why(pack_rules: RuleSet) -> None:
    ex = explain_line("NVRM: Xid (PCI:0000:3B:00): 79, GPU has fallen off the bus", pack_rules.rules)
    assert not ex.hits
    near = {n.rule.id: n for n in ex.near}
    assert set(near) == {"t.xid"}  # the OOM and IB rules share nothing with this line
    assert "then expects '(?P<pci>" in near["t.xid"].reason and "'0000:3B:00): 79" in near["t.xid"].reason
    assert near["t.xid"].matched == "NVRM: Xid (PCI:"

    ex = explain_line("CUDA out of memory. Tried to allocat 2.00 GiB", pack_rules.rules)
    oom = next(n for n in ex.near if n.rule.id == "t.oom")
    assert "missing literal text: 'CUDA out of memory. Tried to allocate '" in oom.reason
    assert explain_line("all quiet", pack_rules.rules).near == ()


def test_pattern_atoms_and_literals() -> None:
    p = r"ab\(x\x41[\]x]+(?:c|d)?\d{1,3}"
    ends = pattern_atoms(p)
    assert ends is not None
    assert [p[a:b] for a, b in zip([0, *ends], ends, strict=False)] == ["a", "b", r"\(", "x", r"\x41", r"[\]x]+", "(?:c|d)?", r"\d{1,3}"]
    assert pattern_atoms("a|b") is None
    assert literal_runs(r"NVRM: Xid \((?:PCI:)?(?P<x>\d+)\): 7(?:9|4),") == (["NVRM: Xid (", "): 7", ","], False)
    assert literal_runs("(?i)gpu lost")[1] is True


def test_match_log_follows_the_engine(tmp_path: Path, pack_rules: RuleSet) -> None:
    log = tmp_path / "rank_4.log"
    log.write_text(
        "NET/IB : Got completion with error 12\nvendor err 129\nstatus=12\n"
        "NET/IB : Got completion with error 5\na\nb\nc\n"
        "ValueError: boom\n"
    )
    found = [(m.line, m.rule_id, m.fields, m.rank) for m in match_log(log, pack_rules)]
    assert found == [(1, "t.ib", (("status", "12"),), 4), (8, "t.exc", (("exc", "ValueError"),), 4)]


# -- coverage ------------------------------------------------------------------------------------


PLANTED = "gpufw: HBM3 thermal trip on device 0000:{bus}:00.0 (temp={t}C, limit=95C), halting kernels"


def _plant(run: Path, log: str, lines: list[str]) -> int:
    path = run / log
    text = path.read_text()
    with path.open("a") as fh:
        if text and not text.endswith("\n"):
            fh.write("\n")
        fh.writelines(line + "\n" for line in lines)
    return len(text.splitlines()) + 1


@pytest.mark.parametrize(
    ("scenario", "log", "prefix"),
    [
        ("torchrun_exception_4r", "scenario/attempt_0/3/stderr.log", "[rank3]:2026-11-30 02:57:31,{ms} ERROR "),
        ("xid79_fallen_off_bus_16r", "node02/rank_9.log", "2026-11-14 08:41:0{ms} - ERROR - train - "),
    ],
)
def test_coverage_finds_what_the_shipped_rules_miss(
    tmp_path: Path, re_ruleset: RuleSet, scenario: str, log: str, prefix: str
) -> None:
    run = tmp_path / scenario
    shutil.copytree(REPLAY_LOGS / scenario, run)
    planted = [prefix.format(ms=n) + PLANTED.format(bus=bus, t=100 + n) for n, bus in enumerate(["3b", "3b", "5e", "86"])]
    first_line = _plant(run, log, planted)
    cov = coverage(run, re_ruleset)
    assert cov.error_lines == cov.handled + cov.unmatched
    top = cov.clusters[0]
    assert top.count == 4 and (top.first_file, top.first_line) == (log, first_line)
    assert "gpufw: HBM3 thermal trip on device <PCI> (temp=<VAL>, limit=<VAL>), halting kernels" in top.template
    assert len(top.examples) == 3
    for cluster in cov.clusters:  # every reported line really is missed by the shipped rules
        for example in cluster.examples:
            assert not re_ruleset.match(example, StreamKind.RANK_LOG) or StreamKind.KERNEL in cluster.kinds, example
    counts = [c.count for c in cov.clusters]
    assert counts == sorted(counts, reverse=True)


def test_coverage_skips_what_the_sources_handle(tmp_path: Path, pack_rules: RuleSet) -> None:
    log = tmp_path / "rank_0.log"
    log.write_text(
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        '    raise ValueError("bad error")\n'
        "ValueError: bad\n"
        "errors: 0, failures: 0\n"
        "W1130 02:57:22.001000 9970 torch/distributed/run.py:874] *****\n"
        "custom thing failed with code 0x1f\n"
        "custom thing failed with code 0x2e\n"
    )
    cov = coverage(log, pack_rules)
    assert [(c.template, c.count, c.first_line) for c in cov.clusters] == [("custom thing failed with code <HEX>", 2, 7)]
    assert cov.error_lines == 4 and cov.handled == 2  # the traceback header and the exception line


@pytest.mark.parametrize(
    ("line", "errorish"),
    [
        ("E1130 17:40:34.227531 1220 foo.cpp:1] something", True),
        ("[W socket.cpp:12] port in use", True),
        ("2026-11-30 02:00:00,000 - WARNING - data - slow", True),
        ("RuntimeError: boom", True),
        ("worker exited with exit code 137", True),
        ("worker exited with exit code 0", False),
        ("step 10 | loss 0.5 | errors 0", False),
        ("all good, no errors", False),
        ("2026-11-30 02:57:31,0 ERROR gpufw: trip", True),
        ("[ 12.5] NVRM: Xid (PCI:0000:3b:00): 13, pid=1", True),
        ("2026-11-30 02:00:00,000 INFO step 1", False),
    ],
)
def test_looks_like_error(line: str, errorish: bool) -> None:
    assert looks_like_error(line) is errorish


def test_masks_for_clustering() -> None:
    miner = template_miner()
    for n, (pci, path, hexid) in enumerate([("0000:3b:00.0", "/a/b/c.py", "0x7f1a"), ("0000:5e:00.0", "/x/y.py", "0x10")]):
        miner.add_log_message(f"2026-11-30 02:00:0{n},1 dev {pci} at {path} id {hexid} rank={n} n {n + 7} busy")
    (cluster,) = miner.drain.clusters
    assert cluster.get_template() == "<TIME> dev <PCI> at <PATH> id <HEX> rank=<VAL> n <NUM> busy"


# -- stubs ---------------------------------------------------------------------------------------


def test_template_pattern_matches_its_examples() -> None:
    pattern = template_pattern("<TIME> - ERROR - gpufw: trip on <PCI> (temp=<VAL>, n=<NUM>) <*> at <PATH> <*>")
    assert pattern.startswith("ERROR\\s+-\\s+gpufw:") and "(?P<pci>" in pattern and not pattern.endswith(r"\S+")
    cluster = Cluster("<TIME> - ERROR - gpufw: trip on <PCI> (temp=<VAL>, n=<NUM>) <*> at <PATH> <*>", 1, "f", 1,
                      ["2026-11-30 02:00:00,1 - ERROR - gpufw: trip on 0000:3b:00.0 (temp=101C, n=3) now at /a/b.py x"])
    got, examples = stub_pattern(cluster)
    assert got == pattern and examples[0][1] == (("pci", "0000:3b:00.0"),)


def test_stubs_are_unique_valid_yaml_and_validate(tmp_path: Path) -> None:
    odd = "weird \x1b[31mred\x1b[0m 'quoted' \"dq\" failed \u2028 now"
    clusters = [
        Cluster("gpufw failed on <PCI>", 2, "a.log", 3, ["gpufw failed on 0000:3b:00.0"], {StreamKind.KERNEL}),
        Cluster("gpufw failed on <NUM>", 1, "a.log", 9, ["gpufw failed on 12"], {StreamKind.RANK_LOG}),
        Cluster(odd, 1, "b.log", 1, [odd], {StreamKind.RANK_LOG, StreamKind.KERNEL}),
    ]
    stubs = make_stubs(clusters, taken={"local.gpufw_failed"})
    assert [s.id for s in stubs] == ["local.gpufw_failed_2", "local.gpufw_failed_3", "local.weird_mred_quoted_failed"]
    assert [s.source for s in stubs] == ["kernel", "rank_log", "any"]
    from detector.authoring.coverage import Coverage

    text = stubs_yaml(Coverage("run", 1, 1, 1, 0, tuple(clusters), ()), stubs)
    path = tmp_path / "stubs.yaml"
    path.write_text(text, encoding="utf-8")
    checked = validate_rules([path], hyperscan=False)
    assert checked.ok, [e.format() for e in checked.errors]
    assert len(checked.result.rules) == 3


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=60))
def test_yaml_str_round_trips(text: str) -> None:
    assert yaml.safe_load(f"x: {yaml_str(text)}")["x"] == text
    assert loads_yaml(f"x: {yaml_str(text)}\n", "t.yaml")["x"] == text


def test_a_pattern_hyperscan_reads_differently_from_re_is_an_error(tmp_path: Path) -> None:
    """A pattern that matches its example under re and that hyperscan never finds (a bounded
    repeat before an alternation whose branches share a quoted word): in a replay the prefilter
    would skip every such line, so validate says so; the same rule with the word factored out passes."""
    broken = (r"^ *\[(?P<ranks>[0-9][0-9, ]{0,800})\] (?:finished collective #(?P<done>[0-9]+), but didn''t join"
              r"|joined but didn''t finish) collective #(?P<missing>[0-9]+)")
    fixed = (r"^ *\[(?P<ranks>[0-9][0-9, ]{0,800})\] (?:finished collective #(?P<done>[0-9]+), but|joined but) "
             r"didn''t (?:join|finish) collective #(?P<missing>[0-9]+)")
    example = "             [7] finished collective #182, but didn't join collective #183 (count from 1)"

    def pack(pattern: str) -> str:
        return (f"rules:\n  - id: t.desync\n    description: d\n    role: collateral\n    pattern: '{pattern}'\n"
                f"    examples:\n      - line: \"{example}\"\n")

    (tmp_path / "p.yaml").write_text(pack(broken))
    checked = validate_rules([tmp_path])
    if not checked.hyperscan_checked:
        pytest.skip("hyperscan is not installed")
    assert any("t.desync: hyperscan does not find the example" in e.format() for e in checked.errors), checked.errors
    (tmp_path / "p.yaml").write_text(pack(fixed))
    assert validate_rules([tmp_path]).ok


def test_a_user_rule_that_hides_a_shipped_rule_from_hyperscan_is_blamed(tmp_path: Path) -> None:
    """Compiled into one hyperscan database with the shipped rules, that broken pattern also hid
    the shipped desync rule's example; validate says so on the shipped rule and blames the user
    layer. A lookaround hyperscan refuses (matched by re instead) is only the usual warning."""
    user = tmp_path / "user"
    user.mkdir()
    broken = (r"^ *\[(?P<ranks>[0-9][0-9, ]{0,800})\] (?:finished collective #(?P<done>[0-9]+), but didn''t join"
              r"|joined but didn''t finish) collective #(?P<missing>[0-9]+)")
    (user / "u.yaml").write_text(
        f"rules:\n  - id: t.desync\n    description: d\n    role: collateral\n    pattern: '{broken}'\n"
        "    examples:\n      - line: \"             [7] finished collective #182, but didn't join collective #183\"\n"
        "  - id: u.look\n    description: d\n    role: context\n    pattern: 'foo(?=bar)'\n"
        "    examples:\n      - line: foobar\n")
    checked = validate_rules(None, [user])
    if not checked.hyperscan_checked:
        pytest.skip("hyperscan is not installed")
    text = "\n".join(e.format() for e in checked.errors)
    if "torch.desync_lagging_ranks" not in text:
        pytest.skip("this hyperscan build does not hide the shipped rule")
    assert "once the user rules are compiled with it" in text
    assert "u.look" not in text


def test_a_pattern_re2_cannot_run_is_a_warning(tmp_path: Path) -> None:
    """A counted repeat above RE2's 1,000 (a shipped rule had one this session) turns a plain
    install's RE2 prefilter into RE2 plus re for it: validate says so, and --strict fails on it."""
    from detector.rules.scanners import linear_twin

    if linear_twin("a") is None:
        pytest.skip("google-re2 is not installed")
    (tmp_path / "p.yaml").write_text(
        PACK + "  - id: t.long\n    description: d\n    role: context\n    pattern: 'Affected ranks: [0-9, ]{1,4000}'\n"
        "    examples: [{line: 'Affected ranks: 1, 2'}]\n"
        "  - id: t.short\n    description: d\n    role: context\n    pattern: 'Affected ranks: [0-9, ]{1,1000}x'\n"
        "    examples: [{line: 'Affected ranks: 1, 2x'}]\n")
    checked = validate_rules([tmp_path], hyperscan=False)
    text = "\n".join(e.format() for e in checked.warnings)
    assert "t.long: warning: RE2 cannot run this pattern" in text and "t.short" not in text, text
