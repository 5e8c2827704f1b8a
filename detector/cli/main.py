"""The ``rankdoctor`` command. Thin: parse arguments, call library functions, print, exit."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from detector.errors import InputError, RankdoctorError

if TYPE_CHECKING:
    from rich.console import Console

    from detector.rules.engine import RuleSet
    from detector.types import Report

EXIT_OK = 0
EXIT_FOUND = 0
EXIT_USAGE = 2
EXIT_ERROR = 1

DESCRIPTION = """\
rankdoctor finds which rank, node and GPU started the failure of a distributed training job,
why, and what to do about it.

commands:
  replay RUN          diagnose a failed run from its logs (a directory or one file)
  rules ...           write, test and check YAML rules
  remediate ...       drain / resubmit / notify for an incident (dry-run unless --act)
  watch ...           the live sidecar: follow logs, kernel log, NVML and Prometheus
  snapshot ...        stacks of the local ranks now: where each waits, who is not with its peers
  check ...           probe this node's sources and hooks for the sidecar (OK / WARN / FAIL)
"""
STDIN_LIMIT = 64 << 20  # `replay -`: a pasted or piped log; bigger ones are replayed from their file


def _replay_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "replay",
        help="diagnose a failed run from its logs",
        description=(
            "Replay a failed run's logs through the detection engine and print the diagnosis: the "
            "initiating rank, node and GPU, the cause, the collateral ranks, the evidence, and the fix "
            "with a command that verifies it. RUN is a directory (per-rank logs, a torchrun --log-dir "
            "tree, Slurm, PBS (NAME.o<job>) or mpirun output files, Kubernetes pod logs, kernel logs - "
            "dmesg, journalctl, also its JSON export, saved as dmesg-<node>.txt or kern.log.<node> too - "
            "JSON-lines logs, metrics exports, Flight Recorder dumps; gzip-, bzip2- or xz-compressed "
            "files and the files of tar and zip archives too; notes (.md) that quote a log when nothing "
            "else is there), a single log file or an archive of logs. The report says "
            "where each node name came from."
        ),
    )
    p.add_argument("run", metavar="RUN", help="directory of the run's logs, or one log file ('-': standard input)")
    p.add_argument("--format", choices=("text", "json", "html"), default="text", help="output format (default: text)")
    p.add_argument("--output", "-o", type=Path, metavar="FILE",
                   help="write the report to FILE instead of standard output ('-': standard output)")
    p.add_argument("--rules", type=Path, action="append", default=[], metavar="PATH",
                   help="extra rule file or directory layered over the shipped rules (repeatable; "
                        "default: those in $RANKDOCTOR_RULES, separated by ':')")
    p.add_argument("--engine", choices=("auto", "hyperscan", "re"), default="auto",
                   help="matching engine (default: hyperscan when installed, else re)")
    p.add_argument("--follow-symlinks", action="store_true", help="follow symbolic links out of the run directory")
    p.add_argument("--verbose", "-v", action="store_true", help="show all evidence in text output")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankdoctor", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _replay_parser(sub)
    sub.add_parser("rules", help="write, test and check YAML rules (rankdoctor rules --help)", add_help=False)
    sub.add_parser("remediate", help="act on an incident (rankdoctor remediate --help)", add_help=False)
    sub.add_parser("watch", help="the live sidecar (rankdoctor watch --help)", add_help=False)
    sub.add_parser("snapshot", help="stacks of the local ranks (rankdoctor snapshot --help)", add_help=False)
    sub.add_parser("check", help="probe the sidecar's sources and hooks (rankdoctor check --help)", add_help=False)
    return parser


def _run_replay(args: argparse.Namespace) -> int:
    from detector.replay import ReplayOptions
    from detector.report.jsonfmt import dumps_report
    from detector.rules.compile import load_ruleset

    # (rich is imported only where it draws: JSON output of a paste starts ~40 ms sooner)
    if not args.run:  # (Path("") is the current folder: `replay "$RUN"` with RUN unset would read it)
        raise RankdoctorError("RUN is empty: give a run's folder or a log file ('.' for the current folder)")
    if args.output is not None and str(args.output) == "-":
        args.output = None  # ('-': standard output, as '-' for RUN is standard input)
    run = Path(args.run)
    if args.output:
        _check_output(args.output, run)  # before any work: a report with nowhere to go is lost work
    pasted = _read_stdin() if args.run == "-" else None  # before the rules: an empty paste fails fast
    small = len(pasted) <= SMALL_INPUT if pasted is not None else _small_input(run)
    from detector.rules.loader import user_rule_paths

    rules = load_ruleset(user_rule_paths(args.rules), engine=args.engine, small_input=small)
    options = ReplayOptions(follow_symlinks=args.follow_symlinks, unread_is_error=True)
    show_progress = not args.no_progress and _stderr_is_terminal()
    if show_progress:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

        with Progress("reading logs", BarColumn(), DownloadColumn(), TimeRemainingColumn(), console=Console(stderr=True),
                      transient=True) as bar:
            task = bar.add_task("read", total=None)
            report = _replay_run(
                run, rules, pasted, options=options,
                progress=lambda n: bar.advance(task, n),
                on_total=lambda total: bar.update(task, total=total),
            )
    else:
        report = _replay_run(run, rules, pasted, options=options)
    if args.format == "json":
        text = dumps_report(report)
    elif args.format == "html":
        from detector.report.html import render_html

        text = render_html(report)
    else:
        text = ""
    if args.format == "text":
        from rich.console import Console

        from detector.report.text import render_text

        if args.output:
            buf = io.StringIO()
            render_text(report, Console(file=buf, width=120, no_color=True), verbose=args.verbose)
            _write_output(args.output, buf.getvalue())
        else:
            if sys.stdout is None:
                raise InputError("standard output", "closed: nowhere to print the report (use --output FILE)")
            try:
                render_text(report, _text_console(), verbose=args.verbose)
                sys.stdout.flush()
            except BrokenPipeError:
                raise
            except OSError as exc:
                raise InputError("standard output", f"cannot write the report ({exc.strerror or exc})") from None
        return EXIT_FOUND
    if args.output:
        _write_output(args.output, text)
        if args.format == "html":
            print(f"wrote {args.output}", file=sys.stderr)
    else:
        _write_stdout(text)
    return EXIT_FOUND


TEXT_WIDTH = (60, 240)  # the text report's width, whatever the terminal or COLUMNS says


def _text_console() -> Console:
    """The console the text report is drawn on: the terminal's width (or COLUMNS), kept within
    :data:`TEXT_WIDTH` (COLUMNS=0 drew nothing, COLUMNS=5 a mangled report, COLUMNS=100000000
    a report of hundreds of MB)."""
    import os

    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # (rich exits with status 1 where the reader closed the pipe; the JSON report's
            # closed pipe ends as this one now does, through main's BrokenPipeError)
            self.quiet = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise BrokenPipeError

    console = _Console()
    low, high = TEXT_WIDTH
    if not low <= console.width <= high:
        console = _Console(width=min(max(console.width, low), high))
    return console


def _check_output(output: Path, run: Path) -> None:
    """Refuse an --output that cannot be written or that is one of the inputs (the report would
    overwrite the log it was made from)."""
    if output.is_dir():
        raise InputError(str(output), "is a folder: give --output a file name")
    parent = output.parent if str(output.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(str(output), f"cannot write: no folder {parent}")
    if str(run) == "-" or not output.exists():
        return
    try:
        out_real, run_real = output.resolve(), run.resolve()
    except (OSError, RuntimeError):
        return
    if out_real == run_real or (run_real.is_dir() and run_real in out_real.parents):
        raise InputError(str(output), "is one of the logs being replayed: write the report elsewhere")


def _write_output(output: Path, text: str) -> None:
    """Write the report whole or not at all: into a new file beside ``output``, then renamed over
    it (a write that fails leaves the earlier file as it was)."""
    import contextlib
    import os
    import tempfile

    data = text.encode("utf-8", "backslashreplace")  # (lone surrogates as \udcXX escapes, as _json_safe)
    target = output
    if output.exists() and not output.is_file():  # a device or a pipe (/dev/stdout, /dev/full): written in place
        try:
            with output.open("wb") as fh:
                fh.write(data)
        except OSError as exc:
            raise InputError(str(output), f"cannot write the report ({exc.strerror or exc})") from None
        return
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=str(target.parent if str(target.parent) else "."))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # (mkstemp makes it 0600: the report gets a new file's usual mode)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise InputError(str(output), f"cannot write the report ({exc.strerror or exc})") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _json_safe(text: str) -> str:
    """``text`` with lone surrogates (the undecodable bytes of a file name or line, kept as
    U+DC80-U+DCFF) written as ``\\udcXX`` escapes: what JSON allows and UTF-8 can encode."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _utf8(stream: Any) -> bool:
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    return encoding in ("utf8", "utf8sig")


def _tolerant_streams() -> None:
    """Standard output and error that cannot fail on a character their encoding lacks (a
    non-UTF-8 locale, PYTHONIOENCODING=ascii: a log line's em dash or CJK text, the tool's own
    ellipsis): such characters print as '?' instead of ending the command in a traceback."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and not _utf8(stream) and hasattr(stream, "reconfigure"):
            with contextlib.suppress(Exception):
                stream.reconfigure(errors="replace")


def _write_stdout(text: str) -> None:
    if sys.stdout is None:
        raise InputError("standard output", "closed: nowhere to print the report (use --output FILE)")
    try:
        data = _json_safe(text)
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is not None and not _utf8(sys.stdout):
            # (a machine-readable report is UTF-8 whatever the locale: JSON must be, and the
            # HTML says it is)
            sys.stdout.flush()
            buffer.write(data.encode("utf-8"))
            buffer.flush()
        else:
            sys.stdout.write(data)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise InputError("standard output", f"cannot write the report ({exc.strerror or exc})") from None


def _stderr_is_terminal() -> bool:
    """Whether a progress bar can be drawn on standard error: a terminal (imports no rich)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


SMALL_INPUT = 256 << 10  # bytes of logs below which matching needs no hyperscan database


def _small_input(run: Path) -> bool:
    """Whether ``run`` (a file or a folder) holds at most SMALL_INPUT bytes; a look at no more
    than 64 entries, which says "not small" when it cannot tell."""
    try:
        if run.is_file():
            return run.stat().st_size <= SMALL_INPUT
        total = 0
        for seen, path in enumerate(run.rglob("*")):
            if seen >= 64:
                return False
            if path.is_file():
                total += path.stat().st_size
                if total > SMALL_INPUT:
                    return False
        return True
    except OSError:
        return False


def _read_stdin() -> bytes:
    """``replay -``: the log pasted or piped on standard input, at most STDIN_LIMIT bytes."""
    from detector.errors import InputError

    if sys.stdin is None:
        raise InputError("-", "standard input is closed: pipe or paste a log (rankdoctor replay - < rank0.log)")
    if sys.stdin.isatty():
        print("rankdoctor: reading a log from standard input (end it with Ctrl-D)", file=sys.stderr)
    data = sys.stdin.buffer.read(STDIN_LIMIT + 1)
    if len(data) > STDIN_LIMIT:
        size = f"{STDIN_LIMIT >> 20} MiB" if STDIN_LIMIT >= 1 << 20 else f"{STDIN_LIMIT} bytes"
        raise InputError("-", f"standard input is over {size}: save it to a file and replay that file")
    if not data.strip():
        raise InputError("-", "standard input is empty: pipe or paste a log (rankdoctor replay - < rank0.log)")
    return data


def _replay_run(run: Path, rules: RuleSet, pasted: bytes | None, **options: Any) -> Report:
    """``replay_path``; a pasted log is replayed as one combined log file."""
    import dataclasses
    import tempfile

    from detector.replay import replay_path

    if pasted is None:
        return replay_path(run, rules, **options)
    with tempfile.TemporaryDirectory(prefix="rankdoctor-stdin-") as tmp:
        path = Path(tmp) / "stdin.log"
        path.write_bytes(pasted)
        report = replay_path(path, rules, **options)
    return dataclasses.replace(report, source="-")


class _GuardedStdout:
    """Standard output for the commands that print tables and lines (``rules``, ``check``,
    ``snapshot``, ``remediate``): a write or flush that fails (a full disk, a closed
    descriptor) raises :class:`InputError` -- one line, not a traceback; a reader that left
    (BrokenPipeError) is passed on to end the command quietly."""

    def __init__(self, target: Any) -> None:
        self._target = target

    def _fail(self, exc: OSError | None) -> InputError:
        import os

        # what is still buffered would fail again when the interpreter exits
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
        why = "closed" if exc is None else f"cannot write ({exc.strerror or exc})"
        return InputError("standard output", f"{why}: nowhere to print (redirect it to a file)")

    def write(self, text: str) -> int:
        if self._target is None:
            raise self._fail(None)
        try:
            return int(self._target.write(text))
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._fail(exc) from None

    def flush(self) -> None:
        if self._target is None:
            return
        try:
            self._target.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._fail(exc) from None

    def __getattr__(self, name: str) -> Any:
        if self._target is None:
            raise AttributeError(name)
        return getattr(self._target, name)


def _guarded(command: Any, argv: list[str]) -> int:
    """Run a subcommand's ``main`` with :class:`_GuardedStdout` as standard output, flushed
    before it returns (so that a failed write is reported here, not at the interpreter's exit)."""
    real = sys.stdout
    sys.stdout = _GuardedStdout(real)
    try:
        code = int(command(argv))
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        import os

        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        raise
    finally:
        sys.stdout = real


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _tolerant_streams()
    try:
        if argv and argv[0] == "remediate":
            from detector.cli.remediate import main as remediate_main

            return _guarded(remediate_main, argv[1:])
        if argv and argv[0] == "rules":
            from detector.cli.rules import main as rules_main

            return _guarded(rules_main, argv[1:])
        if argv and argv[0] == "watch":
            from detector.cli.watch import main as watch_main

            return int(watch_main(argv[1:]))
        if argv and argv[0] == "snapshot":
            from detector.cli.snapshot import main as snapshot_main

            return _guarded(snapshot_main, argv[1:])
        if argv and argv[0] == "check":
            from detector.cli.check import main as check_main

            return _guarded(check_main, argv[1:])
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.version:
            from importlib.metadata import PackageNotFoundError, version

            try:
                print(f"rankdoctor {version('rankdoctor')}")
            except PackageNotFoundError:
                print("rankdoctor (not installed)")
            return EXIT_OK
        if args.command == "replay":
            return _run_replay(args)
        parser.print_help()
        return EXIT_USAGE
    except RankdoctorError as exc:
        print(f"rankdoctor: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("rankdoctor: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        # (the system refused a file the user named or the machine holds: a name too long for the
        # file system, a full disk or temporary folder, a permission - said in one line, as the
        # run's own path is)
        from detector.report.safe_text import clean_line
        from detector.support.walk import shortened

        what = shortened(clean_line(str(exc.filename))) if exc.filename is not None else "a file"
        print(f"rankdoctor: error: {what}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:
        if type(exc).__name__ != "OperationalError" or type(exc).__module__ != "sqlite3":
            raise
        # (a state database on a full disk or a read-only folder: nothing was acted on; sqlite3 is
        # not imported here, which a replay does not need)
        print(f"rankdoctor: error: a state database cannot be written ({exc}): free the disk or give a "
              "writable state folder; nothing was done", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
