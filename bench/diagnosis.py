"""Score rankdoctor's diagnosis on the real-log corpus (replay_logs/real/) against each case's
truth.json, side by side with a naive reader that takes the first error-looking line.

    python bench/diagnosis.py                 # the development cases (not the set-aside third)
    python bench/diagnosis.py --split held    # the set-aside third (score it once, at the end)
    python bench/diagnosis.py --split fresh   # the second set-aside (gathered later; once, at the end)
    python bench/diagnosis.py --split fresh2  # the third set-aside (fifth session; once, at the end)
    python bench/diagnosis.py --split fresh3  # the fourth set-aside (sixth session; once, at the end)
    python bench/diagnosis.py --split fresh4  # the fifth set-aside (seventh session; once, at the end)
    python bench/diagnosis.py --split fresh8  # the ninth set-aside (eleventh session; once, at the end)
    python bench/diagnosis.py --split fresh9  # the tenth set-aside (eleventh session, later; once, at the end)
    python bench/diagnosis.py --split fresh10 # the eleventh set-aside (twelfth session; once, at the end)
    python bench/diagnosis.py --split fresh11 # the twelfth set-aside (thirteenth session; scored, then promoted)
    python bench/diagnosis.py --split fresh12 # the thirteenth set-aside (thirteenth session, later; scored, then promoted)
    python bench/diagnosis.py --split fresh13 # the fourteenth set-aside (fourteenth session; scored, then promoted)
    python bench/diagnosis.py --split fresh14 # the fifteenth set-aside (fifteenth session; scored, then promoted)
    python bench/diagnosis.py --split fresh15 # the sixteenth set-aside (sixteenth session; scored, then promoted)
    python bench/diagnosis.py --split fresh16 # the seventeenth set-aside (seventeenth session; scored, then promoted)
    python bench/diagnosis.py --split fresh17 # the eighteenth set-aside (eighteenth session; scored, then promoted)
    python bench/diagnosis.py --split fresh18 # the nineteenth set-aside (nineteenth session; scored, then promoted)
    python bench/diagnosis.py --split fresh19 # the twentieth set-aside (twentieth session; scored, then promoted)
    python bench/diagnosis.py --split fresh20 # the twenty-first set-aside (twenty-first session; scored, then promoted)
    python bench/diagnosis.py --split fresh21 # the twenty-second set-aside (twenty-second session; scored, then promoted)
    python bench/diagnosis.py --split fresh22 # the twenty-third set-aside (twenty-third session; scored, then promoted)
    python bench/diagnosis.py --split fresh23 # the twenty-fourth set-aside (twenty-fourth session; scored, then promoted)
    python bench/diagnosis.py --split fresh24 # the twenty-fifth set-aside (twenty-fifth session; scored, then promoted)
    python bench/diagnosis.py --split fresh25 # the twenty-sixth set-aside (twenty-sixth session; scored, then promoted)
    python bench/diagnosis.py --split fresh26 # the twenty-seventh set-aside (twenty-seventh session; scored, then promoted)
    python bench/diagnosis.py --split fresh27 # the twenty-eighth set-aside (twenty-eighth session; scored, then promoted)
    python bench/diagnosis.py --split fresh28 # the twenty-ninth set-aside (twenty-ninth session; scored, then promoted)
    python bench/diagnosis.py --split fresh29 # the thirtieth set-aside (thirtieth session; scored, then promoted)
    python bench/diagnosis.py --split fresh30 # the thirty-first set-aside (thirty-first session; scored, then promoted)
    python bench/diagnosis.py --split fresh31 # the thirty-second set-aside (thirty-second session; scored, then promoted)
    python bench/diagnosis.py --split fresh32 # the thirty-third set-aside (thirty-third session; scored, then promoted)
    python bench/diagnosis.py --split fresh33 # the thirty-fourth set-aside (thirty-fourth session; scored, then promoted)
    python bench/diagnosis.py --split fresh34 # the thirty-fifth set-aside (thirty-fifth session; scored, then promoted)
    python bench/diagnosis.py --split fresh35 # the thirty-sixth set-aside (thirty-sixth session; scored, then promoted)
    python bench/diagnosis.py --split fresh36 # the thirty-sixth session's second set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh37 # the thirty-seventh session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh38 # the thirty-eighth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh39 # the thirty-ninth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh40 # the fortieth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh41 # the forty-first session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh42 # the forty-second session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh43 # the forty-third session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh44 # the forty-fourth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh45 # the forty-fifth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh46 # the forty-sixth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh47 # the forty-seventh session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh48 # the forty-eighth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh49 # the forty-ninth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh50 # the fiftieth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh51 # the fifty-first session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh52 # the fifty-second session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh53 # the fifty-sixth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh54 # the fifty-seventh session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh55 # the fifty-eighth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh56 # the fifty-ninth session's set-aside (scored, then promoted)
    python bench/diagnosis.py --split fresh57 # the next set-aside (next session; once, at the end)
    (fresh5, fresh6 and fresh7, set aside in the eighth to tenth sessions, were scored once and
    then moved to development: split.json's "promoted")
    python bench/diagnosis.py --split all --misses

A case's truth: ``healthy`` (no incident expected), ``cause``, ``initiator.rank`` /
``initiator.node`` where the thread or the log establishes them. Figures:

- cause: the first (most important) incident's cause equals the truth (failed cases);
- initiator: the incident's rank equals the known rank, else its node the known node (cases
  where either is known);
- benign: healthy cases with no incident;
- false drains: incidents that would drain a node where the truth's cause does not call for it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detector.types import Report

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "replay_logs" / "real"
DRAIN_CAUSES = {"gpu_hardware", "ecc_memory", "nvlink", "network"}
HEALTHY = "healthy"


@dataclass(frozen=True, slots=True)
class Truth:
    case: str
    healthy: bool
    cause: str | None
    rank: int | None
    node: str | None


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a reader said of a case: no incident (healthy), or a cause with rank/node/drain."""

    cause: str | None  # None: no incident
    rank: int | None = None
    node: str | None = None
    drain: bool = False
    evidence: int = 0


@dataclass(frozen=True, slots=True)
class Scored:
    truth: Truth
    verdict: Verdict

    @property
    def cause_ok(self) -> bool:
        if self.truth.healthy:
            return self.verdict.cause is None
        return self.verdict.cause == self.truth.cause

    @property
    def initiator_known(self) -> bool:
        return not self.truth.healthy and (self.truth.rank is not None or self.truth.node is not None)

    @property
    def initiator_ok(self) -> bool:
        if self.truth.rank is not None:
            return self.verdict.rank == self.truth.rank
        if self.truth.node is not None:
            return self.verdict.node is not None and same_node(self.verdict.node, self.truth.node)
        return False

    @property
    def false_drain(self) -> bool:
        return self.verdict.drain and (self.truth.healthy or self.truth.cause not in DRAIN_CAUSES)


_ADDRESS = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}")


def same_node(said: str, truth: str) -> bool:
    """One host however spelt: equal ignoring case, or a short name and its fully qualified form
    (``nodeau02`` and ``nodeau02.palmetto.clemson.edu``); addresses only when equal."""
    a, b = said.lower(), truth.lower()
    if a == b:
        return True
    if _ADDRESS.fullmatch(a) or _ADDRESS.fullmatch(b):
        return False
    return a.split(".", 1)[0] == b.split(".", 1)[0]


# The set-asides, in the order they were gathered: split.json's key and the --split name.
ASIDES: tuple[tuple[str, str], ...] = (
    ("held_out", "held"), ("fresh", "fresh"), ("fresh2", "fresh2"), ("fresh3", "fresh3"),
    ("fresh4", "fresh4"), ("fresh8", "fresh8"), ("fresh9", "fresh9"), ("fresh10", "fresh10"),
    ("fresh11", "fresh11"), ("fresh12", "fresh12"), ("fresh13", "fresh13"),
    ("fresh14", "fresh14"), ("fresh15", "fresh15"), ("fresh16", "fresh16"),
    ("fresh17", "fresh17"), ("fresh18", "fresh18"), ("fresh19", "fresh19"),
    ("fresh20", "fresh20"), ("fresh21", "fresh21"), ("fresh22", "fresh22"),
    ("fresh23", "fresh23"), ("fresh24", "fresh24"),
    ("fresh25", "fresh25"), ("fresh26", "fresh26"), ("fresh27", "fresh27"),
    ("fresh28", "fresh28"), ("fresh29", "fresh29"), ("fresh30", "fresh30"), ("fresh31", "fresh31"),
    ("fresh32", "fresh32"), ("fresh33", "fresh33"), ("fresh34", "fresh34"),
    ("fresh35", "fresh35"), ("fresh36", "fresh36"), ("fresh37", "fresh37"), ("fresh38", "fresh38"),
    ("fresh39", "fresh39"), ("fresh40", "fresh40"), ("fresh41", "fresh41"), ("fresh42", "fresh42"),
    ("fresh43", "fresh43"), ("fresh44", "fresh44"), ("fresh45", "fresh45"),
    ("fresh46", "fresh46"),
    ("fresh47", "fresh47"), ("fresh48", "fresh48"), ("fresh49", "fresh49"), ("fresh50", "fresh50"),
    ("fresh51", "fresh51"), ("fresh52", "fresh52"), ("fresh53", "fresh53"), ("fresh54", "fresh54"),
    ("fresh55", "fresh55"), ("fresh56", "fresh56"), ("fresh57", "fresh57"))
SPLITS: tuple[str, ...] = ("dev", *(label for _, label in ASIDES))


def split_of(name: str, split: dict[str, object]) -> str:
    """The set-aside a case belongs to (``held``, the third set aside before any rule was
    written, or one of the ``fresh`` sets gathered later by someone who did not run rankdoctor,
    kept aside the same way), or ``dev``."""
    for key, label in ASIDES:
        names = split.get(key) or []
        if isinstance(names, list) and name in names:
            return label
    return "dev"


def load_truths(split: str, corpus: Path = CORPUS) -> list[Truth]:
    splits = json.loads((corpus / "split.json").read_text())
    out = []
    for case in sorted(p for p in corpus.iterdir() if (p / "truth.json").is_file()):
        if split != "all" and split_of(case.name, splits) != split:
            continue
        t = json.loads((case / "truth.json").read_text())
        ini = t.get("initiator") or {}
        out.append(Truth(case.name, bool(t["healthy"]), t.get("cause"), ini.get("rank"), ini.get("node")))
    return out


# --- rankdoctor ---

def rankdoctor_verdict(case_dir: Path, rules: object) -> Verdict:
    from detector.errors import RankdoctorError
    from detector.replay import replay_path

    try:
        report = replay_path(case_dir, rules)  # type: ignore[arg-type]
    except RankdoctorError:  # (the command's clear error, no verdict: "no log files found")
        return Verdict(None)
    return verdict_of(report)


def verdict_of(report: Report | None) -> Verdict:
    """What a replay's report says of its case (None: the command refused it with its error)."""
    if report is None or not report.incidents:
        return Verdict(None)
    inc = report.incidents[0]
    return Verdict(inc.cause.value, inc.initiator.rank, inc.initiator.node, inc.remediation.drain_node,
                   len(inc.evidence))


# --- the naive reader: the first error-looking line wins ---

_ERRORISH = re.compile(
    r"error|exception|traceback|fail|fatal|killed|signal|timed? ?out|timeout|xid|abort|segmentation|"
    r"out of memory|oom|exited|nan\b|illegal|assert|mismatch", re.I)
_NAIVE_CAUSES: tuple[tuple[str, str], ...] = (
    (r"xid\b.*\b(48|63|64|92|94|95)\b|ecc|double bit|row remap", "ecc_memory"),
    (r"xid\b.*\b(13|31|43)\b|illegal memory|device-side assert|misaligned", "illegal_memory_access"),
    (r"xid|fallen off the bus|gpu is lost|unknown error", "gpu_hardware"),
    (r"nvlink|nvswitch|fabric", "nvlink"),
    (r"out of memory|cuda oom|outofmemoryerror", "cuda_oom"),
    (r"oom-kill|oom_kill|killed process|memory cgroup|oomkilled", "host_oom_kill"),
    (r"mismatch", "collective_mismatch"),
    (r"dataloader|data loader|worker \(pid", "data_loader_stall"),
    (r"net/ib|ibv_|mlx5|infiniband|connection reset|connection refused|socket|network", "network"),
    (r"sigterm|preempt|cancelled|time limit|sighup", "preemption"),
    (r"segmentation|sigsegv|bus error|sigbus|sigabrt|signal \d+|core dumped", "crash_signal"),
    (r"watchdog|timed? ?out|timeout", "hang"),
    (r"error|exception|traceback", "python_exception"),
)
_NAIVE_RANK = re.compile(r"\[rank(\d+)\]|\brank[ :=](\d+)\b|local_rank[:=] ?(\d+)", re.I)


def _log_files(case_dir: Path) -> Iterable[Path]:
    return sorted(p for p in case_dir.rglob("*") if p.is_file() and p.name != "truth.json")


def naive_verdict(case_dir: Path) -> Verdict:
    for path in _log_files(case_dir):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if not _ERRORISH.search(line):
                continue
            low = line.lower()
            cause = next((c for pat, c in _NAIVE_CAUSES if re.search(pat, low)), "unknown")
            m = _NAIVE_RANK.search(line)
            rank = int(next(g for g in m.groups() if g is not None)) if m else None
            return Verdict(cause, rank, None, cause in DRAIN_CAUSES)
    return Verdict(None)


# --- tables ---

def score(split: str, *, corpus: Path = CORPUS) -> tuple[list[Scored], list[Scored]]:
    from detector.rules.compile import load_ruleset

    rules = load_ruleset()
    ours, naive = [], []
    for t in load_truths(split, corpus):
        ours.append(Scored(t, rankdoctor_verdict(corpus / t.case, rules)))
        naive.append(Scored(t, naive_verdict(corpus / t.case)))
    return ours, naive


def figures(rows: Sequence[Scored]) -> dict[str, tuple[int, int]]:
    failed = [r for r in rows if not r.truth.healthy]
    healthy = [r for r in rows if r.truth.healthy]
    known = [r for r in rows if r.initiator_known]
    return {
        "cause": (sum(r.cause_ok for r in failed), len(failed)),
        "initiator": (sum(r.initiator_ok for r in known), len(known)),
        "benign": (sum(r.cause_ok for r in healthy), len(healthy)),
        "false_drains": (sum(r.false_drain for r in rows), len(rows)),
        "evidence_missing": (sum(1 for r in rows if r.verdict.cause is not None and r.verdict.evidence == 0), len(rows)),
    }


def pct(pair: tuple[int, int]) -> str:
    n, d = pair
    return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "0/0"


def confusion(rows: Sequence[Scored]) -> str:
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        truth = HEALTHY if r.truth.healthy else str(r.truth.cause)
        table[truth][r.verdict.cause or HEALTHY] += 1
    cols = sorted({c for row in table.values() for c in row})
    short = {c: c[:9] for c in cols}
    head = f"{'truth / said':<22}" + "".join(f"{short[c]:>10}" for c in cols)
    lines = [head]
    for truth in sorted(table):
        lines.append(f"{truth:<22}" + "".join(f"{table[truth][c] or '.':>10}" for c in cols))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=(*SPLITS, "all"),
                    default="dev")
    ap.add_argument("--misses", action="store_true", help="list the cases rankdoctor gets wrong")
    ap.add_argument("--json", type=Path, help="write the figures as JSON")
    args = ap.parse_args(argv)
    ours, naive = score(args.split)
    fo, fn = figures(ours), figures(naive)
    print(f"split: {args.split} ({len(ours)} cases)")
    print(f"{'figure':<18}{'rankdoctor':>16}{'naive first error':>22}")
    for k in fo:
        print(f"{k:<18}{pct(fo[k]):>16}{pct(fn[k]):>22}")
    print("\nrankdoctor, per cause (rows: truth, columns: what it said)")
    print(confusion(ours))
    if args.misses:
        print("\nmisses:")
        for r in ours:
            bad = [] if r.cause_ok else [f"cause {r.verdict.cause} (truth {r.truth.cause if not r.truth.healthy else 'healthy'})"]
            if r.initiator_known and not r.initiator_ok:
                bad.append(f"initiator rank={r.verdict.rank} node={r.verdict.node} (truth rank={r.truth.rank} node={r.truth.node})")
            if r.false_drain:
                bad.append("false drain")
            if bad:
                print(f"  {r.truth.case}: " + "; ".join(bad))
    if args.json:
        args.json.write_text(json.dumps({"split": args.split, "rankdoctor": fo, "naive": fn}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
