"""What the rules miss: the lines of a run that look like errors but that no rule matched,
clustered into templates with Drain3, and a ready-to-edit rule stub for each cluster.

A line *looks like an error* when it has an error or warning log level, a Python exception
name, a traceback header, words like "error", "failed", "fatal", "Xid", or a non-zero exit
code. A line counts as *handled* when the engine matched a rule on it (as `replay` would:
prefilter, fallback rules, windows), when a window rule joined it to a match, when the sources
parse it themselves (torchelastic's failure summary, the frames between a Python traceback or
c10 "Exception raised from" header and the exception line), or when it is a structural marker
the sources look for.

Drain3 masks the parts of a message that vary before clustering: timestamps, PCI ids, paths,
IP addresses, hex ids and numbers, and the value of every ``key=value``. The same masks turn a
cluster's template back into a pattern for its stub (stubs.py).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from drain3 import TemplateMiner
from drain3.masking import MaskingInstruction
from drain3.template_miner_config import TemplateMinerConfig

from detector.pipeline.filescan import MAX_LINE
from detector.pipeline.scan import scan_file
from detector.rules.engine import MAX_MATCH_CHARS, STRUCTURAL, RuleSet
from detector.sources.prefixes import detect_style, strip_prefix
from detector.sources.runs import FileKind, LogFile, discover
from detector.support.compressed import open_log
from detector.support.text import decode_line, is_binary
from detector.types import StreamKind

MAX_EXAMPLES = 3

ERRORISH = re.compile(
    r"""(?ix)
      \b(?:errors?|fatal|critical|panic|exception|failed|failure|fails|abort(?:ed|ing)?|killed|oom
         |segmentation\ fault|core\ dumped|bus\ error|timed\ out|refused|unreachable|denied|s?xid)\b
    | [a-z0-9_](?:error|exception|exit|interrupt|warning)\b
    | \bwarn(?:ing)?\b
    | traceback\ \(most\ recent
    | \bexit(?:\ ?code|\ status|ed\ with(?:\ exit)?\ (?:code|status))\s*[:=]?\s*-?[1-9]
    | \bnon-zero\ exit
    """
)
_GLOG_LEVEL = re.compile(r"^\[?[EWF]\d{4} \d\d:\d\d:\d\d")
_TORCH_LEVEL = re.compile(r"^\[[EWF] ")
_BENIGN = re.compile(r"(?i)(?<![\w.,:])(?:no|0|zero)\s+(?:errors?|failures?)\b|\b(?:errors?|failures?)\s*[:=]?\s*0\b(?!\.)")
_STRUCTURAL = re.compile("|".join(STRUCTURAL) + r"|^During handling of the above exception|^The above exception was the direct cause")
# headers of stack dumps: Python tracebacks, faulthandler ("Current thread 0x… (most recent call
# first):"), c10 ("Exception raised from … (most recent call first):")
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|\(most recent call first\):\s*$")
_FRAME = re.compile(r"^(?:\s|frame #\d+: )")  # Python traceback frames; C++ (c10) stack frames
# a launcher's log line with nothing after its header (torchrun's "*****" banner)
_EMPTY_GLOG = re.compile(r"^(?:\[?[EWIF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]*\]|\[[^\]]*\] [\w.]+: \[[A-Z]+\])\W*$")

_TIME = (
    r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
    r"|[EWIFD]\d{4} \d\d:\d\d:\d\d\.\d+"
    r"|\[ *\d+\.\d+\]"
    r"|\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} +\d+ \d\d:\d\d:\d\d \d{4}\]"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d+ \d\d:\d\d:\d\d"
)
_PCI = r"(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]|[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}"
_UUID = r"(?:GPU-|MIG-)?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_IP = r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?::\d+)?"
_VAL = r"[^\s,;)\]}'\"<]+"
_NUM = r"[-+]?\d+(?:\.\d+)?"


@dataclass(frozen=True, slots=True)
class Mask:
    """A variable part of messages: ``find`` masks it for Drain3 (Python ``re``, lookarounds
    allowed); ``stub`` matches the same text in a stub's pattern (linear, no lookarounds, so
    that hyperscan takes it too)."""

    name: str
    find: str
    stub: str


MASKS: tuple[Mask, ...] = (  # order matters: earlier masks win
    Mask("TIME", rf"(?:{_TIME})", rf"(?:{_TIME})"),
    Mask("UUID", rf"(?<![\w-])(?:{_UUID})(?![\w-])", rf"(?:{_UUID})"),
    Mask("PCI", rf"(?<![\w:])(?:{_PCI})(?![\w]|:\w)", rf"(?:{_PCI})"),
    Mask("IP", rf"(?<![\w.])(?:{_IP})(?![\w.])", rf"(?:{_IP})"),
    Mask("PATH", r"(?<![\w.:/])(?:/[\w.@+-]+){2,}/?", r"/[\w.@+/-]+"),
    Mask("VAL", rf"(?<=[A-Za-z_]=){_VAL}", _VAL),
    Mask("HEX", r"(?<![\w.])(?:0x[0-9a-fA-F]+|(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{4,})(?![\w.])",
         r"(?:0x[0-9a-fA-F]+|[0-9a-fA-F]{4,})"),
    Mask("NUM", rf"(?<![A-Za-z0-9_.])(?:{_NUM})(?![A-Za-z0-9_])", r"[-+]?\d[\d.]*"),
)


def template_miner() -> TemplateMiner:
    """A Drain3 miner with rankdoctor's masks; nothing read from or written to disk."""
    config = TemplateMinerConfig()
    config.masking_instructions = [MaskingInstruction(m.find, m.name) for m in MASKS]
    config.drain_sim_th = 0.5
    config.drain_depth = 4
    config.parametrize_numeric_tokens = True
    return TemplateMiner(persistence_handler=None, config=config)


def looks_like_error(message: str) -> bool:
    if _EMPTY_GLOG.match(message) or (_BENIGN.search(message) and not _TRACEBACK.search(message)):
        return False
    return bool(ERRORISH.search(message) or _GLOG_LEVEL.match(message) or _TORCH_LEVEL.match(message))


@dataclass
class Cluster:
    """Unmatched error-looking lines that share a template."""

    template: str
    count: int
    first_file: str
    first_line: int
    examples: list[str] = field(default_factory=list)  # distinct messages, first seen first
    kinds: set[StreamKind] = field(default_factory=set)
    mined: bool = True  # (False: the lines past what the miner clusters, counted together; no template)


@dataclass(frozen=True, slots=True)
class Coverage:
    source: str
    files: int
    lines: int
    error_lines: int  # lines that look like errors
    handled: int  # … of which a rule matched or the sources parse
    clusters: tuple[Cluster, ...]  # the rest, most frequent first
    warnings: tuple[str, ...]

    @property
    def unmatched(self) -> int:
        return sum(c.count for c in self.clusters)


def _covered_lines(f: LogFile, rules: RuleSet, warnings: list[str]) -> set[int]:
    scan = scan_file(f, rules, year=None)
    warnings.extend(scan.warnings)
    covered: set[int] = set()
    for hit in scan.hits:
        covered.add(hit.event.line)
        if not any(m.rule.context_lines for m in hit.matches):  # the lines a window rule joined
            covered.update(range(hit.event.line + 1, hit.event.line + 1 + len(hit.context)))
    return covered


def _lines(path: Path, compressed: bool = False) -> Iterator[bytes]:
    """A file's lines, one at a time, each cut at MAX_LINE bytes (the rest of a longer line is
    skipped, as the reader does), so memory stays bounded whatever the file size (a compressed
    log: its inflated bytes, bounded by support.compressed)."""
    fh, _st, _note = open_log(path, compressed)
    with fh:
        skipping = False
        while True:
            piece = fh.readline(MAX_LINE)
            if not piece:
                return
            complete = piece.endswith(b"\n")
            if not skipping:
                yield piece.rstrip(b"\n")
            skipping = not complete and len(piece) >= MAX_LINE


MAX_MINED = 10_000  # unmatched lines the template miner clusters (its cost grows with the templates it keeps)
_OVERFLOW = -1  # (the cluster of the lines after those)


class _Collector:
    def __init__(self) -> None:
        self.miner = template_miner()
        self.clusters: dict[int, Cluster] = {}
        self.order: dict[int, int] = {}
        self.mined = 0

    def add(self, message: str, f: LogFile, line: int) -> None:
        if self.mined >= MAX_MINED:
            # (a log of ever new unmatched lines: mining them all took hours; they are counted)
            cluster = self.clusters.get(_OVERFLOW)
            if cluster is None:
                cluster = self.clusters[_OVERFLOW] = Cluster(
                    f"(not clustered: the unmatched error-looking lines after the first {MAX_MINED:,})", 0,
                    f.display, line, mined=False)
                self.order[_OVERFLOW] = len(self.order)
            cluster.count += 1
            cluster.kinds.add(StreamKind.KERNEL if f.kind is FileKind.KERNEL else StreamKind.RANK_LOG)
            if len(cluster.examples) < MAX_EXAMPLES and message not in cluster.examples:
                cluster.examples.append(message)
            return
        self.mined += 1
        result = self.miner.add_log_message(message[:MAX_MATCH_CHARS])
        cid = int(result["cluster_id"])
        cluster = self.clusters.get(cid)
        if cluster is None:
            cluster = self.clusters[cid] = Cluster("", 0, f.display, line)
            self.order[cid] = len(self.order)
        cluster.count += 1
        cluster.kinds.add(StreamKind.KERNEL if f.kind is FileKind.KERNEL else StreamKind.RANK_LOG)
        if len(cluster.examples) < MAX_EXAMPLES and message not in cluster.examples:
            cluster.examples.append(message)

    def result(self) -> tuple[Cluster, ...]:
        for cluster in self.miner.drain.clusters:
            if cluster.cluster_id in self.clusters:
                self.clusters[cluster.cluster_id].template = cluster.get_template()
        ordered = sorted(self.clusters.items(), key=lambda kv: (-kv[1].count, self.order[kv[0]]))
        return tuple(c for _, c in ordered)


def _scan(f: LogFile, rules: RuleSet, collector: _Collector, warnings: list[str]) -> tuple[int, int, int]:
    """(lines, error-looking lines, handled lines) of one file."""
    if _head_is_binary(f.path, f.compressed):
        warnings.append(f"{f.display}: binary data, not a text log; skipped")
        return 0, 0, 0
    covered = _covered_lines(f, rules, warnings)
    style = detect_style(decode_line(x) for x in itertools.islice(_lines(f.path, f.compressed), 50))
    kind = StreamKind.KERNEL if f.kind is FileKind.KERNEL else StreamKind.RANK_LOG
    errorish = handled = 0
    in_traceback = False
    summary_rules = -1  # >= 0 inside a torchelastic failure summary: '=====' lines seen
    number = 0
    for number, raw in enumerate(_lines(f.path, f.compressed), 1):
        message = strip_prefix(decode_line(raw), style).message
        if summary_rules >= 0:
            if message.strip().startswith("====="):
                summary_rules += 1
                if summary_rules >= 2:
                    summary_rules = -1
            if looks_like_error(message):
                errorish += 1
                handled += 1
            continue
        if in_traceback and _FRAME.match(message):
            continue  # a frame of a stack trace: the exception line after it is what counts
        in_traceback = bool(_TRACEBACK.search(message))
        if not looks_like_error(message):
            continue
        errorish += 1
        if in_traceback:  # the header itself: the sources and the exception rules handle it
            handled += 1
            continue
        if "ChildFailedError" in message:
            summary_rules = 0
        if number in covered or _STRUCTURAL.search(message) or rules.match(message, kind):
            handled += 1
            continue
        collector.add(message, f, number)
    return number, errorish, handled


def coverage(run: Path, rules: RuleSet, *, follow_symlinks: bool = False) -> Coverage:
    """The error-looking lines of a run (a directory or one file) that no rule handles,
    clustered. Raises InputError when the run has nothing to read."""
    files, warnings = discover(run, follow_symlinks=follow_symlinks)
    collector = _Collector()
    total = errorish = handled = 0
    logs = [f for f in files if f.kind in (FileKind.RANK_LOG, FileKind.KERNEL)]
    for f in logs:
        try:
            n, e, h = _scan(f, rules, collector, warnings)
        except OSError as exc:
            warnings.append(f"{f.display}: cannot read ({exc.strerror or exc}), skipped")
            continue
        total += n
        errorish += e
        handled += h
    return Coverage(str(run), len(logs), total, errorish, handled, collector.result(), tuple(warnings))


def kinds_source(kinds: Sequence[StreamKind] | set[StreamKind]) -> str:
    """The rule `source:` that fits lines of these kinds."""
    if set(kinds) == {StreamKind.KERNEL}:
        return "kernel"
    if set(kinds) == {StreamKind.RANK_LOG}:
        return "rank_log"
    return "any"


def _head_is_binary(path: Path, compressed: bool = False) -> bool:
    fh, _st, _note = open_log(path, compressed)
    with fh:
        return is_binary(fh.read(8192))
