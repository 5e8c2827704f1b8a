"""``rankdoctor rules …``: write, test and check YAML rules. Thin: parse arguments, call the
library (detector/rules/), print, return an exit status.

Exit status: 0 fine; 1 problems found (validate), nothing matched (test), or a user error;
2 usage.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from detector.errors import InputError
from detector.rules import USER_RULES_ENV

if TYPE_CHECKING:  # imported lazily below, to keep `rankdoctor rules --help` fast
    from detector.rules.engine import RuleSet
    from detector.rules.loader import CompiledRule
    from detector.types import StreamKind

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2

DESCRIPTION = """\
Write, test and check YAML rules.

commands:
  validate [PATH ...]     check rule files (default: the shipped packs and the user directories)
  test LOGFILE            show every line of a log that a rule matches (- reads standard input)
  test --explain LINE     which rules match one line and, for near misses, why not
  list                    the loaded rules, where each comes from, what user rules override
  coverage RUN            error-looking lines of a run that no rule matched, clustered
  schema                  print the JSON Schema of rule files (rules/schema.json)

User rule directories layer over the shipped packs: --rules PATH (repeatable), else the
directories in $RANKDOCTOR_RULES (separated by ':'). A user rule replaces a shipped rule with
the same id, or disables it with `disabled: true`.
"""


def _rules_option(p: argparse.ArgumentParser, *, no_shipped: bool = True) -> None:
    p.add_argument("--rules", type=Path, action="append", default=None, metavar="PATH",
                   help=f"user rule file or directory layered over the shipped packs (repeatable; default: ${USER_RULES_ENV})")
    if no_shipped:
        p.add_argument("--no-shipped", action="store_true", help="use only the --rules files, not the shipped packs")


def _layers(args: argparse.Namespace) -> tuple[list[Path] | None, list[Path]]:
    """(shipped, user) rule layers for load_rules: --no-shipped makes the user rules the only layer."""
    user = _user_rules(args.rules)
    if getattr(args, "no_shipped", False):
        return user, []
    return None, user


def _engine_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", choices=("auto", "hyperscan", "re"), default="auto",
                   help="prefilter engine (default: hyperscan when installed, else re); results are the same")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rankdoctor rules", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    v = sub.add_parser("validate", help="check rule files",
                       description="Check rule files: schema, patterns (re and hyperscan, empty matches, "
                       "backtracking, hyperscan scan cost), duplicate ids, causes and roles, examples and counterexamples. Each "
                       "problem is printed as file:line:column: rule-id: what is wrong. Exit status 1 when "
                       "any is found. PATHs are checked as user layers over the shipped packs.")
    v.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="rule files or directories")
    _rules_option(v, no_shipped=False)
    v.add_argument("--no-shipped", action="store_true",
                   help="check PATHs on their own, as one layer (e.g. a new pack for rules/)")
    v.add_argument("--strict", action="store_true", help="warnings count as problems too")

    t = sub.add_parser("test", help="show the lines of a log that rules match",
                       description="Print every line of LOGFILE that a rule matches, with the rule id, role, cause "
                       "and fields; or, with --explain, which rules match one line and why near misses do not. "
                       "Exit status 1 when nothing matched.")
    t.add_argument("logfile", nargs="?", metavar="LOGFILE", help="a log file, or - for standard input")
    t.add_argument("--explain", metavar="LINE", help="explain one line instead of reading a log")
    _rules_option(t)
    t.add_argument("--kind", choices=("auto", "rank_log", "kernel"), default="auto",
                   help="read the text as a rank log or a kernel log (default: guess)")
    _engine_option(t)

    li = sub.add_parser("list", help="the loaded rules in a table",
                        description="The loaded rules: id, role, cause, source, severity, the file each comes "
                        "from, and which user rules override or disable a shipped one.")
    _rules_option(li)

    c = sub.add_parser("coverage", help="error-looking lines of a run that no rule matched",
                       description="Find the lines of RUN that look like errors (error and warning levels, "
                       "exceptions, 'failed', Xid, non-zero exit codes …) that no rule matched, cluster them "
                       "into templates with Drain3, and print each with its count and first occurrence, most "
                       "frequent first.")
    c.add_argument("run", type=Path, metavar="RUN", help="directory of the run's logs, or one log file")
    _rules_option(c)
    c.add_argument("--write-stubs", type=Path, metavar="FILE", help="write a ready-to-edit rule for each cluster")
    c.add_argument("--force", action="store_true", help="let --write-stubs replace an existing file")
    c.add_argument("--top", type=int, default=0, metavar="N", help="show only the N most frequent clusters")
    c.add_argument("--follow-symlinks", action="store_true", help="follow symbolic links out of the run directory")
    _engine_option(c)

    sub.add_parser("schema", help="print the JSON Schema of rule files",
                   description="Print the JSON Schema of rule files, generated from the rule models "
                   "(make schema writes it to rules/schema.json).")
    return parser


def _user_rules(given: list[Path] | None) -> list[Path]:
    from detector.rules.loader import user_rule_paths

    return user_rule_paths(given)


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


# -- validate -----------------------------------------------------------------------------


def _resolved(path: Path) -> Path:
    """``path`` resolved, or as given where it cannot be (links in a loop: the loader then says
    it cannot read it)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def _validate(args: argparse.Namespace) -> int:
    from detector.authoring.validate import validate_rules
    from detector.rules.loader import shipped_rules_dir

    if args.no_shipped:
        checked = validate_rules(args.paths, [])
    else:
        shipped = shipped_rules_dir().resolve()
        layers = args.paths or _user_rules(args.rules)
        user = [p for p in layers if _resolved(p) != shipped]  # the shipped layer is always there
        checked = validate_rules(None, user)
    for problem in checked.errors:
        _out(problem.format())
    for problem in checked.warnings:
        _out(problem.format())
    n_rules = len(checked.result.rules)
    n_files = len(checked.files)
    failed = bool(checked.errors) or (args.strict and bool(checked.warnings))
    if failed:
        counted = len(checked.errors) + (len(checked.warnings) if args.strict else 0)
        _out(f"{counted} problem{'s' if counted != 1 else ''} ({n_files} file{'s' if n_files != 1 else ''} checked)")
        return EXIT_PROBLEMS
    engines = "re and hyperscan" if checked.hyperscan_checked else "re (hyperscan not installed)"
    warned = f", {len(checked.warnings)} warning{'s' if len(checked.warnings) != 1 else ''}" if checked.warnings else ""
    _out(f"ok: {n_rules} rules in {n_files} file{'s' if n_files != 1 else ''}; patterns checked for {engines}{warned}")
    return EXIT_OK


# -- test ---------------------------------------------------------------------------------


def _kind(name: str) -> StreamKind | None:
    from detector.types import StreamKind

    return None if name == "auto" else StreamKind(name)


def _fields(fields: Sequence[tuple[str, str]]) -> str:
    from detector.report.safe_text import clean_line

    return " ".join(f"{k}={clean_line(v, 80)}" for k, v in fields)


def _test(args: argparse.Namespace) -> int:
    from detector.rules.compile import load_ruleset

    shipped, user = _layers(args)
    ruleset = load_ruleset(user, engine=args.engine, shipped=shipped)
    if args.explain is not None:
        return _explain(args.explain, ruleset.rules, args.kind)
    if args.logfile == "-":
        if sys.stdin is None:
            raise InputError("-", "standard input is closed: pipe a log (rankdoctor rules test - < rank0.log)")
        from detector.cli.main import STDIN_LIMIT

        data = sys.stdin.buffer.read(STDIN_LIMIT + 1)  # (bounded, as replay's: not a whole stream in memory)
        if len(data) > STDIN_LIMIT:
            raise InputError("-", f"standard input is over {STDIN_LIMIT >> 20} MiB: save it to a file and test "
                                  "that file (rankdoctor rules test FILE)")
        with tempfile.TemporaryDirectory(prefix="rankdoctor-") as tmp:
            path = Path(tmp) / "stdin.log"
            path.write_bytes(data)
            del data
            return _test_file(path, "<stdin>", ruleset, args.kind)
    path = Path(args.logfile)
    if not path.is_file():
        raise InputError(args.logfile, "no such file" if not path.exists() else "not a regular file")
    try:
        with open(path, "rb") as fh:
            fh.read(1)
    except OSError as exc:  # (else "no rule matched any line": a rule's author concludes it does not match)
        raise InputError(args.logfile, f"cannot read ({exc.strerror or exc})") from None
    return _test_file(path, args.logfile, ruleset, args.kind)


def _test_file(path: Path, display: str, ruleset: RuleSet, kind: str) -> int:
    from detector.authoring.explain import match_log
    from detector.report.safe_text import clean_line

    matches = match_log(path, ruleset, kind=_kind(kind), display=display)
    for m in matches:
        rank = f" [rank {m.rank}]" if m.rank is not None else ""
        _out(f"{m.file}:{m.line}{rank} {m.rule_id} {m.role} {m.cause or '-'} {_fields(m.fields)}".rstrip())
        _out(f"    {clean_line(m.text, 300)}")
    if not matches:
        _out(f"{display}: no rule matched any line")
        return EXIT_PROBLEMS
    per_rule = Counter(m.rule_id for m in matches)
    lines = len({(m.file, m.line) for m in matches})
    summary = ", ".join(f"{rid} x{n}" for rid, n in per_rule.most_common())
    _out(f"{len(matches)} match{'es' if len(matches) != 1 else ''} on {lines} line{'s' if lines != 1 else ''}: {summary}")
    return EXIT_OK


def _explain(line: str, rules: Sequence[CompiledRule], kind: str) -> int:
    from detector.authoring.explain import explain_line
    from detector.report.safe_text import clean_line

    ex = explain_line(line, rules, kind=_kind(kind))
    rank = f", rank {ex.rank}" if ex.rank is not None else ""
    guessed = " (guessed; --kind to change)" if ex.kind_guessed else ""
    _out(f"line, read as {ex.kind.value}{guessed}{rank}: {clean_line(ex.message, 300)}")
    if ex.hits:
        _out("matches:")
        for h in ex.hits:
            r = h.rule
            mark = "" if h.counts else " (not counted)"
            _out(f"  {r.id} {r.role.value} {r.cause.value if r.cause else '-'} {_fields(h.fields)}".rstrip() + mark)
            _out(f"    from {r.path}:{r.line}")
            if h.note:
                _out(f"    {h.note}")
    else:
        _out("no rule matches this line")
    if ex.near:
        _out("near misses:")
        for n in ex.near:
            _out(f"  {n.rule.id} ({n.rule.path}:{n.rule.line})")
            _out(f"    {clean_line(n.reason, 400)}")
    return EXIT_OK if any(h.counts for h in ex.hits) else EXIT_PROBLEMS


# -- list ---------------------------------------------------------------------------------


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    fmt = "  ".join(f"{{:{w}}}" for w in widths[:-1]) + "  {}"
    return [fmt.format(*header).rstrip(), *(fmt.format(*r).rstrip() for r in rows)]


def _list(args: argparse.Namespace) -> int:
    from detector.authoring.validate import rule_rows
    from detector.report.safe_text import clean_line
    from detector.rules.loader import load_rules

    result = load_rules(*_layers(args))
    rows = rule_rows(result)
    table = []
    for r in rows:
        where = f"{r.file}:{r.line}" if r.line else r.file
        note = ""
        if r.status == "override":
            note = f"overrides {r.overrides}"
        elif r.status == "disabled":
            note = f"disabled (was in {r.overrides})" if r.overrides else "disabled"
        table.append([r.id, r.role, r.cause, r.source, r.severity, clean_line(where), clean_line(note)])
    for line in _table(["ID", "ROLE", "CAUSE", "SOURCE", "SEVERITY", "FILE", "NOTE"], table):
        _out(line)
    active = sum(1 for r in rows if r.status != "disabled")
    over = sum(1 for r in rows if r.status == "override")
    off = sum(1 for r in rows if r.status == "disabled")
    _out(f"{active} rules ({over} overridden by user rules), {off} disabled")
    for problem in result.problems:
        print(problem.format(), file=sys.stderr)
    return EXIT_PROBLEMS if result.problems else EXIT_OK


# -- coverage -----------------------------------------------------------------------------


def _coverage(args: argparse.Namespace) -> int:
    from detector.authoring.coverage import coverage
    from detector.authoring.stubs import make_stubs, stubs_yaml
    from detector.report.safe_text import clean_line
    from detector.rules.compile import load_ruleset
    from detector.rules.loader import shipped_rules_dir

    if not os.path.lexists(args.run):
        raise InputError(str(args.run), "no such file or directory")
    if args.write_stubs is not None and args.write_stubs.exists() and not args.force:
        raise InputError(str(args.write_stubs), "exists; choose another file or add --force")
    shipped, user = _layers(args)
    ruleset = load_ruleset(user, engine=args.engine, shipped=shipped)
    cov = coverage(args.run, ruleset, follow_symlinks=args.follow_symlinks)
    shown = cov.clusters[: args.top] if args.top > 0 else cov.clusters
    _out(f"{clean_line(cov.source)}: {cov.files} files, {cov.lines} lines; {cov.error_lines} look like errors, "
         f"{cov.handled} handled by rules or sources, {cov.unmatched} unmatched in {len(cov.clusters)} "
         f"cluster{'s' if len(cov.clusters) != 1 else ''}")
    if shown:
        rows = [[str(c.count), clean_line(f"{c.first_file}:{c.first_line}"), clean_line(c.template, 160)] for c in shown]
        _out()
        for line in _table(["COUNT", "FIRST SEEN", "TEMPLATE"], rows):
            _out("  " + line)
    for warning in cov.warnings:
        print(f"warning: {clean_line(warning)}", file=sys.stderr)
    if args.write_stubs is not None:
        stubs = make_stubs(cov.clusters, taken=[r.id for r in ruleset.rules])
        schema = shipped_rules_dir() / "schema.json"
        target_dir = args.write_stubs.resolve().parent
        ref = os.path.relpath(schema.resolve(), target_dir) if schema.exists() else "schema.json"
        try:
            args.write_stubs.write_text(stubs_yaml(cov, stubs, schema_ref=ref), encoding="utf-8")
        except OSError as exc:
            raise InputError(str(args.write_stubs), f"cannot write: {exc.strerror or exc}") from None
        _out(f"wrote {len(stubs)} rule stub{'s' if len(stubs) != 1 else ''} to {args.write_stubs}")
    return EXIT_OK


# -- schema -------------------------------------------------------------------------------


def _schema(_args: argparse.Namespace) -> int:
    from detector.authoring.validate import schema_text

    sys.stdout.write(schema_text())
    return EXIT_OK


_COMMANDS = {"validate": _validate, "test": _test, "list": _list, "coverage": _coverage, "schema": _schema}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``rankdoctor rules``; ``argv`` is what follows ``rules``. User errors
    (RankdoctorError) propagate to ``detector.cli.main.main``, which prints them."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        if args.command == "test" and (args.logfile is None) == (args.explain is None):
            parser.error("rules test: give a LOGFILE (or - for standard input), or --explain LINE")
        if args.command == "validate" and args.no_shipped and not args.paths:
            parser.error("rules validate: --no-shipped needs at least one PATH")
        if args.command in ("test", "list", "coverage") and args.no_shipped and not args.rules:
            parser.error(f"rules {args.command}: --no-shipped needs --rules PATH")
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    return _COMMANDS[args.command](args)
