"""The reader's shortcuts give what the long way gives: quick_prefix what strip_prefix gives, the
tail decoded at once what decode_line gives line by line, the last-activity walk what the walk
that strips every line gave, the hyperscan form of a pattern (trimmed, relaxed) every line the
pattern matches, and line feeds counted with bytes.replace what bytes.count counts."""

from __future__ import annotations

import re
import warnings
from datetime import datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from detector.pipeline.scan import count_newlines, scan_file
from detector.pipeline.tail import last_activity, tail_lines
from detector.rules.engine import RuleSet
from detector.rules.prefilter import prefilter_pattern
from detector.rules.rewrite import relaxed, trimmed
from detector.sources.prefixes import PrefixStyle, quick_prefix, strip_prefix
from detector.sources.runs import FileKind, discover
from detector.support.text import decode_line
from tests.support.paths import REPLAY_LOGS

PIECES = ["[rank3]:", "[rank12]:", "[default2]:", "[rank=4] || ", "[1,3]<stderr>:", "[rank: 1] ", "[gpu187:2]:",
          "i.pretrain/0 ", "(RayTrainWorker pid=12, ip=10.0.0.7) ", "10.0.0.7: ", "node07: ", " 3: ", "2024-11-20 14:37:16 ",
          "[E1130 17:40:34.227531 ProcessGroupNCCL.cpp:563] ", "[Rank 5] ", "[PG 0 Rank 3] ", ".cpp:458] [Rank 3]",
          "local_rank: 0 ", "--local_rank=1 ", "Watchdog caught", "step 12 | loss 2.1", "٣", "²", " ", ":", "[", "]", "x"]


def _corpus() -> list[str]:
    lines: list[str] = []
    for path in sorted(REPLAY_LOGS.rglob("*")):
        if path.is_file() and path.suffix in (".log", ".txt", ".out", ""):
            lines.extend(path.read_text(errors="replace").splitlines()[:400])
    return lines


def _same(line: str, style: PrefixStyle) -> None:
    quick = quick_prefix(line, style)
    if quick is None:
        return
    pre = strip_prefix(line, style)
    assert (pre.message, pre.rank, pre.local_rank, pre.host, pre.hinted) == (line[quick[2]:], quick[0], quick[1], None, False)


def test_quick_prefix_is_strip_prefix_on_real_lines() -> None:
    lines = _corpus()
    assert len(lines) > 1000
    for style in PrefixStyle:
        for line in lines:
            _same(line, style)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=6), st.text(max_size=20), st.sampled_from(list(PrefixStyle)))
def test_quick_prefix_is_strip_prefix(pieces: list[str], rest: str, style: PrefixStyle) -> None:
    _same("".join(pieces) + rest, style)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.binary(max_size=40) | st.sampled_from([b"\r", b"\xe2\x82", b"\xff", "é".encode(), b"a\rb\r"]), max_size=30))
def test_tail_decoded_at_once_is_decoded_line_by_line(parts: list[bytes]) -> None:
    data = b"".join(parts).replace(b"\n", b"") + b"\n" + b"\n".join(parts)
    raws = data.split(b"\n")
    if raws and raws[-1] == b"":
        raws.pop()
    assert tail_lines(data) == [decode_line(raw) for raw in raws]


@given(st.binary(max_size=300))
def test_count_newlines(data: bytes) -> None:
    assert count_newlines(data) == data.count(b"\n")


def _old_last_activity(scan, max_lines: int = 20000) -> dict[int | None, datetime]:  # type: ignore[no-untyped-def]
    """The walk as it was: strip every line's prefix (a kernel line among a rank log's lines, one
    without a rank's prefix, is no activity of the ranks')."""
    parser = scan.parser
    out: dict[int | None, datetime] = {}
    wanted = len(scan.prefix_ranks) + 1
    for i in range(len(scan.tail_lines) - 1, max(-1, len(scan.tail_lines) - 1 - max_lines), -1):
        pre = strip_prefix(scan.tail_lines[i], parser.style)
        if pre.rank in out:
            continue
        if (pre.rank is None and scan.file.kind is FileKind.RANK_LOG
                and (" kernel: " in scan.tail_lines[i] or "NVRM: " in scan.tail_lines[i])):
            continue
        stamp = parser.stamp(pre.message)
        if stamp is not None and stamp.time is not None:
            out[pre.rank] = stamp.time
            if len(out) >= wanted:
                break
    return out


def _old_prefix_ranks(scan) -> set[int]:  # type: ignore[no-untyped-def]
    ranks = set()
    for raw in scan.tail_lines:
        if raw.startswith("[") or scan.parser.style is PrefixStyle.SRUN_LABEL:
            pre = strip_prefix(raw, scan.parser.style)
            if pre.rank is not None and not pre.hinted:
                ranks.add(pre.rank)
    return ranks


def test_tail_ranks_and_last_activity_as_the_line_by_line_walk_gave(ruleset: RuleSet, tmp_path: Path) -> None:
    combined = tmp_path / "combined.log"  # ranks whose last lines have no time, a rank that never has one
    combined.write_text("".join(
        [f"[rank{r}]:2026-11-29T12:00:{s:02d}Z step {s} | loss 1.0\n" for s in range(30) for r in range(6)]
        + [f"[rank{r}]:  File \"x.py\", line {r}\n" for r in range(8)] + ["plain line without a time\n"]))
    runs = [p for p in sorted(REPLAY_LOGS.iterdir()) if p.is_dir()] + [combined]
    checked = 0
    for run in runs:
        for f in discover(run)[0]:
            if f.kind not in (FileKind.RANK_LOG, FileKind.KERNEL):
                continue
            scan = scan_file(f, ruleset, year=2026)
            if scan.parser is None:
                continue
            assert _old_prefix_ranks(scan) <= scan.prefix_ranks
            assert last_activity(scan) == _old_last_activity(scan), f.display
            for limit in (1, 3, 50):
                assert last_activity(scan, max_lines=limit) == _old_last_activity(scan, limit), f.display
            checked += 1
    assert checked > 50


def test_hyperscan_form_of_each_rule_matches_where_the_rule_does(ruleset: RuleSet) -> None:
    for rule in ruleset.rules:
        pattern = prefilter_pattern(rule.pattern)
        fast = re.compile(relaxed(trimmed(pattern)), re.ASCII)
        slow = re.compile(pattern, re.ASCII)
        for line, _fields in rule.examples:
            if slow.search(line):
                assert fast.search(line), rule.id
        for line in rule.counterexamples:
            if slow.search(line):
                assert fast.search(line), rule.id


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab()[]{}|?*+\\.:-0123456789,", max_size=12))
def test_trimmed_and_relaxed_patterns_match_a_superset(body: str) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # "[[": a possible nested set, one day
            original = re.compile(body)
    except re.error:
        return
    for form in (trimmed(body), relaxed(body, 2), relaxed(trimmed(body), 2)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                fast = re.compile(form)
        except re.error:  # pragma: no cover - trimmed() keeps the pattern when its form does not compile
            raise AssertionError(f"{body!r} -> {form!r} does not compile") from None
        for text in ("", "a", "ab", "aab", "abab", "a:b", "{}", "[]", "((a))", "a1,2", "x" * 5, "ab" * 5, "a.b-c"):
            if original.search(text):
                assert fast.search(text), (body, form, text)
