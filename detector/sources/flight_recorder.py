"""PyTorch Flight Recorder dumps -> which rank never entered the collective the others wait in,
and which rank issued a different collective.

A Flight Recorder dump is one rank's ring buffer of its recent collectives, written by torch
(``ProcessGroupNCCL``'s watchdog on a timeout, or on request through
``torch._C._distributed_c10d._dump_fr_trace()`` / ``_dump_fr_trace_json()``, which the gloo/CPU
build has too) to ``${TORCH_FR_DUMP_TEMP_FILE}<rank>`` (older name
``TORCH_NCCL_DEBUG_INFO_TEMP_FILE``; default base names ``comm_lib_trace_rank_`` and, before,
``nccl_trace_rank_``). The file holds no rank: it is the number the file name ends with.

Format (version "2.x", the one torch's ``fr_trace`` analyser reads): a dict with ``version``,
``pg_config`` (pg name -> ``{name, desc, ranks: "[0, 1]"}``), ``pg_status`` (pg id ->
``last_enqueued_collective`` / ``last_started_collective`` / ``last_completed_collective``),
``comm_lib_version`` and ``entries``: one dict per recorded op (``process_group`` (name, desc),
``collective_seq_id``, ``p2p_seq_id``, ``profiling_name`` like ``nccl:all_reduce`` or
``gloo:all_reduce``, ``input_sizes``/``output_sizes``/``input_dtypes``/``output_dtypes``,
``state`` scheduled|started|completed, ``retired``, ``time_created_ns``, ``frames``...). Written
as a pickle (torch's own pickler: only dicts, lists, tuples, strings, numbers, booleans, None)
or as JSON (the same keys; numbers in ``pg_status`` as strings).

Dumps are untrusted input. A pickle is never given to ``pickle.load``: its opcodes are checked
first against the few that torch's pickler emits (no GLOBAL/REDUCE/BUILD/..., so nothing can be
imported or called), container nesting and memo indexes are bounded, and only then is it
unpickled by an unpickler that refuses every class and persistent id. Files are capped in size
(:data:`MAX_DUMP_BYTES`) and entries in number (:data:`MAX_ENTRIES`); every field is checked for
its type. Anything else raises :class:`FrDumpError` naming the file and the problem.

Pure API: :func:`read_dump` (path -> :class:`FrDump`), :func:`analyse` (dumps ->
:class:`FrAnalysis`), :func:`findings` (analysis -> :class:`~detector.types.Finding`);
:func:`looks_like_fr_dump` tells run discovery which files are dumps.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import pickletools
import re
import stat
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from detector.errors import InputError
from detector.types import Cause, Finding, Role, Severity

MAX_DUMP_BYTES = 32 * 1024 * 1024
"""Largest dump read. NCCL's default ring of 2,000 entries with stack frames is 1-5 MB."""
MAX_ENTRIES = 100_000
"""Most entries one dump may hold (TORCH_FR_BUFFER_SIZE is 2,000 by default on NCCL)."""
MAX_GROUPS = 100_000
MAX_TENSORS = 4_096  # tensors of one op (coalesced ops list many)
MAX_DIMS = 32
MAX_FRAMES = 64  # frames kept per entry (the innermost first, as torch writes them)
MAX_TEXT = 1_024  # longest name, path or dtype string kept (longer ones are cut)
MAX_RANK = 1 << 20
MAX_TUPLE_DEPTH = 8
MAX_MEMO = 1 << 24
_INT64 = 1 << 63

RULE_MISSING = "flight_recorder.missing_rank"
RULE_WAITING = "flight_recorder.waiting"
RULE_MISMATCH = "flight_recorder.mismatch"
RULE_MISMATCH_PEER = "flight_recorder.mismatch_peer"
RULE_LAGGING = "flight_recorder.lagging_rank"

FR_DUMP_NAME = re.compile(
    r"^(?:.*?[_.-])?(?:nccl|comm_lib|fr|flight_recorder|gloo|xccl|hccl|rccl)?[_-]?trace[_-]?(?:rank[_-]?)?"
    r"(\d{1,7})(?:\.(?:pkl|pickle|json|bin))?$",
    re.I,
)
"""File names torch (and people) give dumps: ``nccl_trace_rank_3``, ``comm_lib_trace_rank_3``,
``fr_trace_3.json``... (the default base names plus the rank; TORCH_FR_DUMP_TEMP_FILE may set
any other prefix, which :func:`looks_like_fr_dump` recognises by content)."""
_RANK_SUFFIX = re.compile(r"(\d{1,7})(?:\.(?:pkl|pickle|json|bin))?$", re.I)
_VERSION = re.compile(r"^(\d{1,4})\.(\d{1,4})$")
_RANKS_TEXT = re.compile(r"^\[\s*(?:\d{1,7}\s*(?:,\s*\d{1,7}\s*)*)?\]$")

DumpFormat = Literal["pickle", "json"]


class FrDumpError(InputError):
    """A file is not a readable Flight Recorder dump (or is one that is unsafe or too big)."""


# --------------------------------------------------------------------------------------------
# values


@dataclass(frozen=True, slots=True)
class FrFrame:
    name: str
    filename: str
    line: int


@dataclass(frozen=True, slots=True)
class FrEntry:
    """One recorded op of one rank."""

    record_id: int
    pg_id: int | None
    pg_name: str
    pg_desc: str
    collective_seq_id: int
    p2p_seq_id: int
    op_id: int | None
    profiling_name: str  # as recorded: "nccl:all_reduce", "gloo:broadcast", "nccl:send 0->1"
    backend: str  # "nccl", "gloo", ... ("" when the name has no prefix)
    op: str  # "all_reduce", "send", "coalesced", ...
    is_p2p: bool
    input_sizes: tuple[tuple[int, ...], ...]
    output_sizes: tuple[tuple[int, ...], ...]
    input_dtypes: tuple[str, ...]
    output_dtypes: tuple[str, ...]
    state: str  # scheduled | started | completed (gloo leaves every entry "scheduled")
    retired: bool | None
    time_created_ns: int | None
    time_started_ns: int | None
    time_completed_ns: int | None
    timeout_ms: int | None
    frames: tuple[FrFrame, ...] = ()


@dataclass(frozen=True, slots=True)
class FrGroupConfig:
    name: str
    desc: str
    ranks: tuple[int, ...] | None  # global ranks; None when the dump does not say (or says "[]")


@dataclass(frozen=True, slots=True)
class FrGroupStatus:
    pg_id: str
    last_enqueued: int | None
    last_started: int | None
    last_completed: int | None


@dataclass(frozen=True, slots=True)
class FrDump:
    """One rank's dump, checked and normalised."""

    path: str
    rank: int
    format: DumpFormat
    version: str
    comm_lib_version: str
    configs: tuple[FrGroupConfig, ...]
    status: tuple[FrGroupStatus, ...]
    entries: tuple[FrEntry, ...]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FrRankProgress:
    """Where one rank stands in one process group."""

    rank: int
    entered: int  # last collective sequence number it entered (enqueued); 0 when none
    completed: int | None  # last one it completed, when the dump says
    waiting: bool  # it entered a collective that it had not completed when it dumped
    last_op: str | None  # the op of its last entered collective, when in its buffer
    has_dump: bool = True


@dataclass(frozen=True, slots=True)
class FrSignature:
    """What a rank called as one collective: the op and its tensors (as compared)."""

    op: str
    input_sizes: tuple[tuple[int, ...], ...]
    output_sizes: tuple[tuple[int, ...], ...]
    input_dtypes: tuple[str, ...]
    output_dtypes: tuple[str, ...]
    parts: int = 1  # ops in a coalesced group

    def describe(self) -> str:
        def sizes(value: tuple[tuple[int, ...], ...]) -> str:
            return "[" + ", ".join("[" + ", ".join(map(str, s)) + "]" for s in value) + "]"

        ins = f"input {sizes(self.input_sizes)} {'/'.join(self.input_dtypes) or '-'}"
        outs = f"output {sizes(self.output_sizes)} {'/'.join(self.output_dtypes) or '-'}"
        extra = f", {self.parts} coalesced ops" if self.parts > 1 else ""
        return f"{op_type(self.op)} ({ins}, {outs}{extra})"


@dataclass(frozen=True, slots=True)
class FrHang:
    """Ranks wait in collective ``seq`` that ``missing`` never entered."""

    seq: int
    op: str
    waiting: tuple[int, ...]
    missing: tuple[int, ...]  # ranks with a dump that never entered it
    no_dump: tuple[int, ...]  # members that left no dump
    since_ns: int | None  # when the first waiting rank entered it
    confidence: float
    note: str = ""


@dataclass(frozen=True, slots=True)
class FrMismatch:
    """Ranks issued different collectives as the same sequence number."""

    seq: int
    kind: Literal["type", "size", "dtype"]
    expected: FrSignature | None  # the majority's call; None when no majority
    majority: tuple[int, ...]
    culprits: tuple[tuple[int, FrSignature], ...]  # the minority (all calls when no majority)
    completed: bool  # every rank completed it anyway (then it is not what stopped the job)
    times_ns: tuple[tuple[int, int], ...] = ()  # rank -> time_created_ns of its call


@dataclass(frozen=True, slots=True)
class FrGroupAnalysis:
    name: str
    desc: str
    members: tuple[int, ...]
    members_inferred: bool  # no usable pg_config: members are the ranks seen using the group
    progress: tuple[FrRankProgress, ...]
    hang: FrHang | None = None
    lagging: tuple[int, ...] = ()  # behind the others while nobody waits (dump timing, or a hang)
    mismatch: FrMismatch | None = None
    dumps: tuple[tuple[int, str], ...] = ()  # rank -> dump path

    @property
    def label(self) -> str:
        desc = self.desc if self.desc and self.desc != "undefined" else ""
        return f"process group {self.name}" + (f" ({desc})" if desc else "")


@dataclass(frozen=True, slots=True)
class FrAnalysis:
    groups: tuple[FrGroupAnalysis, ...]
    ranks: tuple[int, ...]  # ranks with a dump
    world: tuple[int, ...]  # every rank known to exist
    warnings: tuple[str, ...] = ()
    dumps: tuple[tuple[int, str], ...] = field(default=())


# --------------------------------------------------------------------------------------------
# recognising and reading


def is_fr_dump_name(name: str) -> bool:
    """A file name torch gives Flight Recorder dumps (``comm_lib_trace_rank_3``, ...)."""
    return bool(FR_DUMP_NAME.match(name))


def rank_from_dump_name(name: str) -> int | None:
    """The rank a dump's file name ends with (torch writes ``<prefix><rank>``)."""
    m = _RANK_SUFFIX.search(name)
    if m is None:
        return None
    rank = int(m.group(1))
    return rank if rank < MAX_RANK else None


def _sniff(head: bytes) -> DumpFormat | None:
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        window = head[:4096]
        if b"version" in window[:256] and (b"pg_config" in window or b"entries" in window or b"pg_status" in window):
            return "pickle"
        return None
    text = head.lstrip()
    if text[:1] == b"{" and b'"entries"' in text and any(
        k in text for k in (b'"pg_config"', b'"pg_status"', b'"comm_lib_version"', b'"collective_seq_id"')
    ):
        return "json"
    return None


def looks_like_fr_dump(path: Path) -> bool:
    """Whether ``path`` is a Flight Recorder dump: a regular file no larger than
    :data:`MAX_DUMP_BYTES` that starts like torch's dump (a protocol 2-5 pickle of a dict whose
    first key is ``version``, or a JSON object with ``entries`` and the dump's other keys).
    Reads at most 4 KiB; never raises. A name like ``comm_lib_trace_rank_3`` alone is not enough
    (see :func:`is_fr_dump_name` for that cheaper test)."""
    try:
        st = os.stat(path, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_DUMP_BYTES or st.st_size < 16:
            return False
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return _sniff(head) is not None


def read_dump(
    path: Path | str,
    *,
    rank: int | None = None,
    display: str | None = None,
    max_bytes: int = MAX_DUMP_BYTES,
    max_entries: int = MAX_ENTRIES,
) -> FrDump:
    """Read one dump safely. ``rank`` defaults to the number the file name ends with;
    ``display`` (default: the path) is how errors, :attr:`FrDump.path` and the findings' ``file``
    name it (run discovery passes the run-relative name).

    Raises :class:`FrDumpError` (an :class:`~detector.errors.InputError`) for anything that is
    not a readable dump: too big, truncated, not a dump, a pickle that would import or call
    anything, fields of the wrong type, more than ``max_entries`` entries."""
    path = Path(path)
    where = display if display is not None else str(path)
    if rank is None:
        rank = rank_from_dump_name(path.name)
        if rank is None:
            raise FrDumpError(where, "the file name does not end with a rank number (torch writes <prefix><rank>)")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise FrDumpError(where, f"cannot open: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FrDumpError(where, "not a regular file")
        if st.st_size > max_bytes:
            raise FrDumpError(where, f"{st.st_size} bytes is over the {max_bytes}-byte limit for a Flight Recorder dump")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise FrDumpError(where, f"over the {max_bytes}-byte limit for a Flight Recorder dump (the file grew)")
    return parse_dump(data, where=where, rank=rank, max_entries=max_entries)


def read_dumps(paths: Iterable[Path | str], **kwargs: Any) -> tuple[list[FrDump], list[str]]:
    """Every readable dump of ``paths``, and one warning per file that is not (never raises
    :class:`FrDumpError`)."""
    dumps: list[FrDump] = []
    warnings: list[str] = []
    for p in paths:
        try:
            dumps.append(read_dump(p, **kwargs))
        except FrDumpError as exc:
            warnings.append(f"Flight Recorder dump skipped: {exc}")
    return dumps, warnings


def parse_dump(data: bytes, *, where: str, rank: int, max_entries: int = MAX_ENTRIES) -> FrDump:
    """A dump from its bytes (pickle or JSON, told apart by the first bytes)."""
    if not 0 <= rank < MAX_RANK:
        raise FrDumpError(where, f"rank {rank} is out of range")
    if len(data) < 2:
        raise FrDumpError(where, "empty or truncated file")
    fmt: DumpFormat
    if data[0] == 0x80:
        fmt = "pickle"
        raw = _safe_unpickle(data, where)
    elif data.lstrip()[:1] == b"{":
        fmt = "json"
        raw = _load_json(data, where)
    else:
        raise FrDumpError(where, "not a Flight Recorder dump (neither a pickle nor a JSON object)")
    return _build_dump(raw, where=where, rank=rank, fmt=fmt, max_entries=max_entries)


# --------------------------------------------------------------------------------------------
# safe decoding

# The opcodes a dict of lists/tuples/strings/numbers/booleans/None can be pickled with
# (protocols 2-5). Everything that imports, calls or builds objects is absent: GLOBAL,
# STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ(_EX), PERSID, BINPERSID, EXT1/2/4, as are
# bytes, sets, buffers, protocol-0 text forms and POP/DUP (which torch's pickler never emits).
_PUSH = frozenset({
    "NONE", "NEWTRUE", "NEWFALSE", "BININT", "BININT1", "BININT2", "LONG1", "BINFLOAT",
    "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8", "EMPTY_LIST", "EMPTY_DICT",
})
_ALLOWED = _PUSH | frozenset({
    "PROTO", "FRAME", "STOP", "MARK", "EMPTY_TUPLE", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3",
    "LIST", "DICT", "APPEND", "APPENDS", "SETITEM", "SETITEMS",
    "PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE", "GET", "BINGET", "LONG_BINGET",
})
_DANGEROUS = frozenset({
    "GLOBAL", "STACK_GLOBAL", "REDUCE", "BUILD", "INST", "OBJ", "NEWOBJ", "NEWOBJ_EX",
    "PERSID", "BINPERSID", "EXT1", "EXT2", "EXT4",
})


def _clip(text: str, limit: int = 80) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in text[: limit + 1])
    return text if len(text) <= limit else text[:limit] + "..."


def _prescan(data: bytes, where: str) -> None:
    """Walk the opcodes (pickletools parses, it never executes) and refuse any that could import
    or call, any malformed stack use, deeply nested tuples (which hashing would recurse into)
    and out-of-range memo indexes."""
    stack: list[int] = []  # per item: tuple nesting depth (0 for anything else)
    marks: list[int] = []
    memo: dict[int, int] = {}
    end = -1

    def fail(detail: str, pos: int) -> FrDumpError:
        return FrDumpError(where, f"refused: {detail} at byte {pos}; a Flight Recorder dump holds only dicts, "
                                  "lists, strings, numbers, booleans and None, so the file was not loaded")

    def pop_to_mark(pos: int) -> list[int]:
        if not marks:
            raise fail("malformed pickle (no MARK)", pos)
        base = marks.pop()
        items = stack[base:]
        del stack[base:]
        return items

    def pop(n: int, pos: int) -> list[int]:
        fence = marks[-1] if marks else 0
        if len(stack) - fence < n:
            raise fail("malformed pickle (stack underflow)", pos)
        items = stack[len(stack) - n :]
        del stack[len(stack) - n :]
        return items

    def check_keys(keys: Iterable[int], pos: int) -> None:
        if any(depth > MAX_TUPLE_DEPTH for depth in keys):
            raise fail(f"dict keys nested more than {MAX_TUPLE_DEPTH} tuples deep", pos)

    try:
        for opcode, arg, pos in pickletools.genops(data):
            name = opcode.name
            pos = pos or 0
            if name not in _ALLOWED:
                if name in _DANGEROUS:
                    what = f" {_clip(str(arg))!r}" if name in ("GLOBAL", "INST") and arg is not None else ""
                    raise fail(f"the pickle imports or calls code (opcode {name}{what})", pos)
                raise fail(f"opcode {name} is not used by Flight Recorder dumps", pos)
            if name == "PROTO":
                if not isinstance(arg, int) or not 2 <= arg <= 5:
                    raise fail(f"pickle protocol {arg}", pos)
            elif name == "FRAME":
                continue
            elif name in _PUSH:
                if name == "LONG1" and isinstance(arg, int) and abs(arg) >= 1 << 64:
                    raise fail("an integer wider than 64 bits", pos)
                stack.append(0)
            elif name == "EMPTY_TUPLE":
                stack.append(1)
            elif name == "MARK":
                marks.append(len(stack))
            elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
                items = pop(int(name[-1]), pos)
                stack.append(1 + max(items))
            elif name == "TUPLE":
                items = pop_to_mark(pos)
                stack.append(1 + max(items, default=0))
            elif name == "LIST":
                pop_to_mark(pos)
                stack.append(0)
            elif name == "DICT":
                items = pop_to_mark(pos)
                if len(items) % 2:
                    raise fail("malformed pickle (odd DICT)", pos)
                check_keys(items[0::2], pos)
                stack.append(0)
            elif name == "APPEND":
                pop(1, pos)
                pop(1, pos)
                stack.append(0)
            elif name == "APPENDS":
                pop_to_mark(pos)
                pop(1, pos)
                stack.append(0)
            elif name == "SETITEM":
                key, _value = pop(2, pos)
                check_keys((key,), pos)
                pop(1, pos)
                stack.append(0)
            elif name == "SETITEMS":
                items = pop_to_mark(pos)
                if len(items) % 2:
                    raise fail("malformed pickle (odd SETITEMS)", pos)
                check_keys(items[0::2], pos)
                pop(1, pos)
                stack.append(0)
            elif name in ("PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"):
                idx = len(memo) if name == "MEMOIZE" else arg
                if not isinstance(idx, int) or not 0 <= idx < MAX_MEMO:
                    raise fail(f"memo index {idx} out of range", pos)
                if not stack or (marks and len(stack) == marks[-1]):
                    raise fail("malformed pickle (memo of nothing)", pos)
                memo[idx] = stack[-1]
            elif name in ("GET", "BINGET", "LONG_BINGET"):
                if not isinstance(arg, int) or arg not in memo:
                    raise fail(f"memo index {arg} was never stored", pos)
                stack.append(memo[arg])
            elif name == "STOP":
                if len(stack) != 1 or marks:
                    raise fail("malformed pickle (STOP with a wrong stack)", pos)
                end = pos + 1
    except FrDumpError:
        raise
    except (ValueError, TypeError, IndexError, KeyError, OverflowError, MemoryError) as exc:
        detail = str(exc)
        if "exhausted" in detail or "not enough data" in detail or "truncated" in detail:
            raise FrDumpError(where, "truncated pickle (the file ends before the dump does)") from None
        raise FrDumpError(where, f"not a valid pickle: {_clip(detail, 160)}") from None
    if end < 0:
        raise FrDumpError(where, "truncated pickle (the file ends before the dump does)")
    if end != len(data):
        raise FrDumpError(where, f"{len(data) - end} bytes of trailing data after the pickle")


class _PlainUnpickler(pickle.Unpickler):
    """Second line of defence: refuses every class and persistent id."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused to import {_clip(module)}.{_clip(name)}")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused a persistent id")


def _safe_unpickle(data: bytes, where: str) -> Any:
    if len(data) < 2 or data[0] != 0x80 or not 2 <= data[1] <= 5:
        raise FrDumpError(where, "not a pickle of protocol 2-5 (torch writes protocol 2)")
    _prescan(data, where)
    try:
        return _PlainUnpickler(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError, AttributeError,
            OverflowError, MemoryError, RecursionError) as exc:
        raise FrDumpError(where, f"unreadable pickle: {_clip(str(exc), 160)}") from None


def _load_json(data: bytes, where: str) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FrDumpError(where, "JSON dump is not valid UTF-8") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise FrDumpError(where, "JSON nested too deeply") from None
    except ValueError as exc:
        raise FrDumpError(where, f"not valid JSON (truncated?): {_clip(str(exc), 160)}") from None


# --------------------------------------------------------------------------------------------
# checking the structure


class _Check:
    """Typed access to untrusted values; every failure names the field."""

    def __init__(self, where: str, fmt: DumpFormat) -> None:
        self.where = where
        self.fmt = fmt

    def fail(self, path: str, detail: str) -> FrDumpError:
        return FrDumpError(self.where, f"{path}: {detail}")

    @staticmethod
    def kind(value: object) -> str:
        return "null" if value is None else type(value).__name__

    def as_dict(self, value: object, path: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected a dict, got {self.kind(value)}")
        for key in value:
            if not isinstance(key, str):
                raise self.fail(path, f"expected string keys, got a {self.kind(key)} key")
        return value

    def as_list(self, value: object, path: str, limit: int) -> Sequence[Any]:
        if not isinstance(value, list | tuple):
            raise self.fail(path, f"expected a list, got {self.kind(value)}")
        if len(value) > limit:
            raise self.fail(path, f"{len(value)} items is over the limit of {limit}")
        return value

    def as_int(self, value: object, path: str, *, optional: bool = False) -> int | None:
        if value is None and optional:
            return None
        if isinstance(value, str) and self.fmt == "json" and re.fullmatch(r"-?\d{1,19}", value):
            value = int(value)  # torch's JSON writes pg_status numbers as strings
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"expected an integer, got {self.kind(value)}")
        if not -_INT64 <= value < _INT64:
            raise self.fail(path, "integer out of the 64-bit range")
        return value

    def req_int(self, value: object, path: str) -> int:
        out = self.as_int(value, path)
        assert out is not None
        return out

    def as_str(self, value: object, path: str, *, limit: int = MAX_TEXT) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"expected a string, got {self.kind(value)}")
        return value if len(value) <= limit else value[:limit] + "..."

    def as_bool(self, value: object, path: str) -> bool | None:
        if value is None:
            return None
        if not isinstance(value, bool):
            raise self.fail(path, f"expected a boolean, got {self.kind(value)}")
        return value

    def sizes(self, value: object, path: str) -> tuple[tuple[int, ...], ...]:
        out = []
        for i, dims in enumerate(self.as_list(value, path, MAX_TENSORS)):
            dims = self.as_list(dims, f"{path}[{i}]", MAX_DIMS)
            out.append(tuple(self.req_int(d, f"{path}[{i}]") for d in dims))
        return tuple(out)

    def strs(self, value: object, path: str) -> tuple[str, ...]:
        return tuple(self.as_str(v, f"{path}[{i}]", limit=64) for i, v in enumerate(self.as_list(value, path, MAX_TENSORS)))


def _split_profiling_name(name: str) -> tuple[str, str]:
    backend, sep, rest = name.partition(":")
    if not sep:
        backend, rest = "", name
    op = rest.strip().split(" ", 1)[0] if rest.strip() else ""
    return backend, op


def _ns(value: int | None) -> int | None:
    return value if value else None  # JSON writes 0 where the pickle writes None


def _build_entry(raw: object, idx: int, c: _Check) -> FrEntry:
    path = f"entries[{idx}]"
    e = c.as_dict(raw, path)
    pg = e.get("process_group")
    pg_pair = c.as_list(pg, f"{path}.process_group", 2) if pg is not None else None
    if pg_pair is None or len(pg_pair) != 2:
        raise c.fail(f"{path}.process_group", "expected a (name, description) pair")
    pg_name = c.as_str(pg_pair[0], f"{path}.process_group[0]", limit=256)
    pg_desc = c.as_str(pg_pair[1], f"{path}.process_group[1]", limit=256)
    if "profiling_name" not in e:
        raise c.fail(f"{path}.profiling_name", "missing")
    profiling_name = c.as_str(e["profiling_name"], f"{path}.profiling_name", limit=256)
    seq_key = "collective_seq_id" if "collective_seq_id" in e else "seq_id"  # dumps before 2.3: seq_id
    if seq_key not in e:
        raise c.fail(f"{path}.collective_seq_id", "missing")
    backend, op = _split_profiling_name(profiling_name)
    p2p = c.as_bool(e.get("is_p2p"), f"{path}.is_p2p")
    if p2p is None:
        p2p = op in ("send", "recv")
    frames: list[FrFrame] = []
    raw_frames = e.get("frames")
    if raw_frames is not None:
        seq = raw_frames if isinstance(raw_frames, list | tuple) else c.as_list(raw_frames, f"{path}.frames", 0)
        for i, fr in enumerate(seq[:MAX_FRAMES]):
            fp = f"{path}.frames[{i}]"
            fd = c.as_dict(fr, fp)
            frames.append(FrFrame(
                name=c.as_str(fd.get("name", ""), f"{fp}.name"),
                filename=c.as_str(fd.get("filename", ""), f"{fp}.filename"),
                line=c.as_int(fd.get("line", 0), f"{fp}.line") or 0,
            ))
    state = e.get("state", "scheduled")
    return FrEntry(
        record_id=c.as_int(e.get("record_id", idx), f"{path}.record_id") or 0,
        pg_id=c.as_int(e.get("pg_id"), f"{path}.pg_id", optional=True),
        pg_name=pg_name,
        pg_desc=pg_desc,
        collective_seq_id=c.req_int(e[seq_key], f"{path}.{seq_key}"),
        p2p_seq_id=c.as_int(e.get("p2p_seq_id", 0), f"{path}.p2p_seq_id") or 0,
        op_id=c.as_int(e.get("op_id"), f"{path}.op_id", optional=True),
        profiling_name=profiling_name,
        backend=backend,
        op=op,
        is_p2p=p2p,
        input_sizes=c.sizes(e.get("input_sizes", []), f"{path}.input_sizes"),
        output_sizes=c.sizes(e.get("output_sizes", []), f"{path}.output_sizes"),
        input_dtypes=c.strs(e.get("input_dtypes", []), f"{path}.input_dtypes"),
        output_dtypes=c.strs(e.get("output_dtypes", []), f"{path}.output_dtypes"),
        state=c.as_str(state, f"{path}.state", limit=32),
        retired=c.as_bool(e.get("retired"), f"{path}.retired"),
        time_created_ns=_ns(c.as_int(e.get("time_created_ns"), f"{path}.time_created_ns", optional=True)),
        time_started_ns=_ns(c.as_int(e.get("time_discovered_started_ns"), f"{path}.time_discovered_started_ns",
                                  optional=True)),
        time_completed_ns=_ns(c.as_int(e.get("time_discovered_completed_ns"), f"{path}.time_discovered_completed_ns",
                                    optional=True)),
        timeout_ms=c.as_int(e.get("timeout_ms"), f"{path}.timeout_ms", optional=True),
        frames=tuple(frames),
    )


def _parse_ranks(value: object, path: str, c: _Check) -> tuple[int, ...] | None:
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 8 * MAX_RANK or not _RANKS_TEXT.match(text):
            raise c.fail(path, "expected a list of ranks like '[0, 1]'")
        ranks = tuple(int(t) for t in re.findall(r"\d+", text))
    else:
        ranks = tuple(c.req_int(v, path) for v in c.as_list(value, path, MAX_RANK))
    if any(not 0 <= r < MAX_RANK for r in ranks):
        raise c.fail(path, "rank out of range")
    return ranks or None


def _build_dump(raw: object, *, where: str, rank: int, fmt: DumpFormat, max_entries: int) -> FrDump:
    c = _Check(where, fmt)
    top = c.as_dict(raw, "the dump")
    warnings: list[str] = []
    version = top.get("version")
    if version is None:
        warnings.append(f"{where}: no format version; read as 2.x")
        version = ""
    else:
        version = c.as_str(version, "version", limit=32)
        m = _VERSION.match(version)
        if m is None:
            raise c.fail("version", f"expected 'major.minor', got {_clip(version)!r}")
        if int(m.group(1)) != 2:
            warnings.append(f"{where}: format version {version} (this reader knows 2.x); read as 2.x")
    configs: list[FrGroupConfig] = []
    for name, cfg in c.as_dict(top.get("pg_config", {}), "pg_config").items():
        if len(configs) >= MAX_GROUPS:
            raise c.fail("pg_config", f"more than {MAX_GROUPS} process groups")
        cp = f"pg_config[{_clip(name, 40)!r}]"
        cd = c.as_dict(cfg, cp)
        configs.append(FrGroupConfig(
            name=c.as_str(cd.get("name", name), f"{cp}.name", limit=256),
            desc=c.as_str(cd.get("desc", ""), f"{cp}.desc", limit=256),
            ranks=_parse_ranks(cd.get("ranks", "[]"), f"{cp}.ranks", c),
        ))
    status: list[FrGroupStatus] = []
    for pg_id, st in c.as_dict(top.get("pg_status", {}), "pg_status").items():
        if len(status) >= MAX_GROUPS:
            raise c.fail("pg_status", f"more than {MAX_GROUPS} process groups")
        sp = f"pg_status[{_clip(pg_id, 40)!r}]"
        sd = c.as_dict(st, sp)
        status.append(FrGroupStatus(
            pg_id=_clip(pg_id, 256),
            last_enqueued=c.as_int(sd.get("last_enqueued_collective"), f"{sp}.last_enqueued_collective", optional=True),
            last_started=c.as_int(sd.get("last_started_collective"), f"{sp}.last_started_collective", optional=True),
            last_completed=c.as_int(sd.get("last_completed_collective"), f"{sp}.last_completed_collective",
                                 optional=True),
        ))
    raw_entries = top.get("entries", [])
    if isinstance(raw_entries, list | tuple) and len(raw_entries) > max_entries:
        raise c.fail("entries", f"{len(raw_entries)} entries is over the limit of {max_entries}")
    entries = tuple(_build_entry(e, i, c) for i, e in enumerate(c.as_list(raw_entries, "entries", max_entries)))
    comm = top.get("comm_lib_version", "")
    return FrDump(
        path=where,
        rank=rank,
        format=fmt,
        version=version,
        comm_lib_version=c.as_str(comm, "comm_lib_version", limit=128) if comm is not None else "",
        configs=tuple(configs),
        status=tuple(status),
        entries=entries,
        warnings=tuple(warnings),
    )


# --------------------------------------------------------------------------------------------
# analysis

_OP_TYPES = {
    "all_reduce": "ALLREDUCE",
    "allreduce": "ALLREDUCE",
    "allreduce_coalesced": "ALLREDUCE_COALESCED",
    "all_gather": "ALLGATHER",
    "allgather": "ALLGATHER",
    "_all_gather_base": "_ALLGATHER_BASE",
    "_allgather_base": "_ALLGATHER_BASE",
    "all_gather_into_tensor_coalesced": "ALLGATHER_COALESCED",
    "reduce_scatter": "REDUCE_SCATTER",
    "_reduce_scatter_base": "_REDUCE_SCATTER_BASE",
    "reduce_scatter_tensor_coalesced": "REDUCE_SCATTER_COALESCED",
    "broadcast": "BROADCAST",
    "_broadcast_oop": "BROADCAST",
    "reduce": "REDUCE",
    "_reduce_oop": "REDUCE",
    "gather": "GATHER",
    "scatter": "SCATTER",
    "all_to_all": "ALLTOALL",
    "all_to_all_single": "ALLTOALL_BASE",
    "alltoall_base": "ALLTOALL_BASE",
    "barrier": "BARRIER",
    "send": "SEND",
    "recv": "RECV",
    "coalesced": "COALESCED",
}
# ops whose tensor sizes may differ between ranks by design
_SIZES_MAY_DIFFER = frozenset({
    "all_to_all", "all_to_all_single", "all_to_all_v_single", "alltoall_base", "all_gather_v",
    "reduce_scatter_v", "coalesced", "ALLGATHER_coalesced", "REDUCE_SCATTER_coalesced",
})


def op_type(op: str) -> str:
    """The op as NCCL's watchdog names it (``ALLREDUCE``), from the profiling name's op."""
    return _OP_TYPES.get(op, op.strip("_").upper() or "UNKNOWN")


def _signature(entries: Sequence[FrEntry]) -> FrSignature:
    first = entries[0]
    op = first.op
    if len(entries) > 1:  # a coalesced group: compare the ops and their tensors in order
        ordered = sorted(entries, key=lambda e: (e.op_id if e.op_id is not None else 0, e.record_id))
        return FrSignature(
            op=op,
            input_sizes=tuple(s for e in ordered for s in e.input_sizes),
            output_sizes=tuple(s for e in ordered for s in e.output_sizes),
            input_dtypes=tuple(d for e in ordered for d in e.input_dtypes),
            output_dtypes=tuple(d for e in ordered for d in e.output_dtypes),
            parts=len(ordered),
        )
    return FrSignature(op, first.input_sizes, first.output_sizes, first.input_dtypes, first.output_dtypes)


def _comparable(sig: FrSignature) -> tuple[object, ...]:
    """What must agree between ranks for one collective (root-dependent sides left out)."""
    ins: object = sig.input_sizes
    outs: object = sig.output_sizes
    in_dt: object = sig.input_dtypes
    out_dt: object = sig.output_dtypes
    if sig.op in _SIZES_MAY_DIFFER:
        ins = outs = None
    if sig.op == "gather":  # only the root has outputs
        outs = out_dt = None
    if sig.op == "scatter":  # only the root has inputs
        ins = in_dt = None
    return (sig.op, sig.parts, ins, outs, in_dt, out_dt)


def _mismatch_kind(a: FrSignature, b: FrSignature) -> Literal["type", "size", "dtype"]:
    if a.op != b.op or a.parts != b.parts:
        return "type"
    ca, cb = _comparable(a), _comparable(b)
    if ca[2:4] != cb[2:4]:
        return "size"
    return "dtype"


def _known_world(dumps: Sequence[FrDump], world_size: int | None) -> tuple[int, ...]:
    ranks = {d.rank for d in dumps}
    for d in dumps:
        for cfg in d.configs:
            if cfg.ranks and d.rank in cfg.ranks and len(cfg.ranks) <= MAX_RANK:
                ranks |= set(cfg.ranks)
    if world_size is not None and 0 < world_size <= MAX_RANK:
        ranks |= set(range(world_size))
    return tuple(sorted(ranks))


def _dedupe(dumps: Sequence[FrDump]) -> tuple[list[FrDump], list[str]]:
    """One dump per rank: the one that saw the most (a pickle and its JSON twin, or an older dump)."""
    by_rank: dict[int, list[FrDump]] = {}
    for d in dumps:
        by_rank.setdefault(d.rank, []).append(d)
    kept: list[FrDump] = []
    warnings: list[str] = []
    for rank in sorted(by_rank):
        group = by_rank[rank]

        def score(d: FrDump) -> tuple[int, int, int]:
            enq = max((s.last_enqueued or 0 for s in d.status), default=0)
            seq = max((e.collective_seq_id for e in d.entries), default=0)
            return (max(enq, seq), len(d.entries), d.format == "pickle")

        best = max(group, key=score)
        kept.append(best)
        if len(group) > 1:
            others = ", ".join(d.path for d in group if d is not best)
            warnings.append(f"{len(group)} Flight Recorder dumps for rank {rank}: used {best.path}, not {others}")
    return kept, warnings


def _progress(dump: FrDump, name: str, entries: Sequence[FrEntry], pg_ids: set[str]) -> FrRankProgress:
    """``pg_ids``: the ids the group has in the dumps' entries (torch keys pg_status by pg id)."""
    colls = [e for e in entries if not e.is_p2p]
    seq_max = max((e.collective_seq_id for e in colls), default=0)
    statuses = [s for s in dump.status if s.pg_id in pg_ids] or [s for s in dump.status if s.pg_id == name]
    enq = max((s.last_enqueued for s in statuses if s.last_enqueued is not None), default=None)
    comp_status = max((s.last_completed for s in statuses if s.last_completed is not None), default=None)
    entered = max(seq_max, enq or 0, 0)
    done = [e.collective_seq_id for e in colls if e.state == "completed"]
    if comp_status is not None:
        completed: int | None = max(comp_status, 0)
    elif done or any(e.retired for e in colls):
        completed = max(done + [e.collective_seq_id for e in colls if e.retired], default=0)
    else:
        completed = None
    last = [e for e in colls if e.collective_seq_id == entered]
    in_flight = any(e.state != "completed" and not e.retired for e in last) if last else False
    waiting = entered > 0 and ((completed is not None and completed < entered) or (completed is None and in_flight))
    return FrRankProgress(dump.rank, entered, completed, waiting, last[0].op if last else None)


def _members(name: str, desc: str, dumps: Sequence[FrDump], using: set[int], world: tuple[int, ...]
             ) -> tuple[tuple[int, ...], bool]:
    for d in dumps:
        for cfg in d.configs:
            if cfg.name == name and cfg.ranks and d.rank in cfg.ranks:
                return cfg.ranks, False
    if desc == "default_pg" or (name == "0" and desc in ("", "undefined")):
        return world, False
    return tuple(sorted(using)), True


def _analyse_hang(name: str, progress: Sequence[FrRankProgress], no_dump: Sequence[int],
                  by_rank: Mapping[int, Sequence[FrEntry]], inferred: bool) -> tuple[FrHang | None, tuple[int, ...]]:
    if not progress:
        return None, ()
    top = max(p.entered for p in progress)
    if top <= 0:
        return None, ()
    at_top = [p for p in progress if p.entered == top]
    waiting = tuple(sorted(p.rank for p in at_top if p.waiting))
    behind = tuple(sorted(p.rank for p in progress if p.entered < top))
    if not waiting:
        return None, behind
    op = next((e.op for p in at_top for e in by_rank.get(p.rank, ()) if e.collective_seq_id == top and not e.is_p2p),
              next((p.last_op for p in at_top if p.last_op), "") or "")
    since = min((e.time_created_ns for r in waiting for e in by_rank.get(r, ())
                 if e.collective_seq_id == top and not e.is_p2p and e.time_created_ns), default=None)
    if behind:
        confidence = 0.9
        note = ""
        if len(behind) > len(waiting):
            confidence = 0.55
            note = (f"more ranks are behind than waiting: rank(s) {rank_list(waiting)} may instead have issued "
                    "an extra collective")
        if inferred:
            confidence = min(confidence, 0.6)
        return FrHang(top, op, waiting, behind, tuple(no_dump), since, confidence, note), ()
    if no_dump:
        return FrHang(top, op, waiting, (), tuple(no_dump), since, 0.6,
                      "every rank with a dump waits; the rank(s) without one are the suspects"), ()
    return FrHang(top, op, waiting, (), (), since, 0.3, "every rank entered it and none completed it"), ()


def _analyse_mismatch(by_rank: Mapping[int, Sequence[FrEntry]], progress: Mapping[int, FrRankProgress]
                      ) -> FrMismatch | None:
    per_seq: dict[int, dict[int, list[FrEntry]]] = {}
    for rank, entries in by_rank.items():
        for e in entries:
            if not e.is_p2p and e.collective_seq_id > 0:
                per_seq.setdefault(e.collective_seq_id, {}).setdefault(rank, []).append(e)
    for seq in sorted(per_seq):
        calls = per_seq[seq]
        if len(calls) < 2:
            continue
        sigs = {rank: _signature(entries) for rank, entries in calls.items()}
        votes = Counter(_comparable(s) for s in sigs.values())
        if len(votes) < 2:
            continue
        (top_key, top_n), (_second_key, second_n) = votes.most_common(2)
        times = tuple(sorted((r, min((e.time_created_ns or 0) for e in es)) for r, es in calls.items()))
        completed = all((progress[r].completed or 0) >= seq for r in calls if r in progress)
        if top_n > second_n:
            majority = tuple(sorted(r for r, s in sigs.items() if _comparable(s) == top_key))
            expected = sigs[majority[0]]
            culprits = tuple((r, s) for r, s in sorted(sigs.items()) if _comparable(s) != top_key)
            kind = _mismatch_kind(expected, culprits[0][1])
            return FrMismatch(seq, kind, expected, majority, culprits, completed, times)
        sig_list = sorted(sigs.items())
        kind = _mismatch_kind(sig_list[0][1], next(s for _r, s in sig_list if _comparable(s) != _comparable(sig_list[0][1])))
        return FrMismatch(seq, kind, None, (), tuple(sig_list), completed, times)
    return None


def analyse(dumps: Sequence[FrDump], *, world_size: int | None = None) -> FrAnalysis:
    """Per process group: where each rank stands, the collective the others wait in and the
    rank(s) that never entered it, and the first collective the ranks disagree about.

    ``world_size`` (from the logs, when known) lets a rank that left no dump count as a member of
    the default group."""
    kept, warnings = _dedupe(dumps)
    for d in kept:
        warnings.extend(d.warnings)
    world = _known_world(kept, world_size)
    # group entries by process group name (pg names agree across ranks: torch assigns them in the
    # same order on every rank)
    groups: dict[str, dict[int, list[FrEntry]]] = {}
    descs: dict[str, str] = {}
    for d in kept:
        for e in d.entries:
            groups.setdefault(e.pg_name, {}).setdefault(d.rank, []).append(e)
            if e.pg_desc and descs.get(e.pg_name) in (None, "", "undefined"):
                descs[e.pg_name] = e.pg_desc
    # pg ids are assigned in the same order on every rank: one map for all dumps
    ids_of: dict[str, set[str]] = {}
    for d in kept:
        for e in d.entries:
            if e.pg_id is not None:
                ids_of.setdefault(e.pg_name, set()).add(str(e.pg_id))
    mapped = set().union(*ids_of.values()) if ids_of else set()
    for d in kept:  # groups known only from pg_status (their entries rotated out of every ring)
        for st in d.status:
            if st.pg_id not in mapped and st.pg_id not in groups and (st.last_enqueued or 0) > 0:
                groups.setdefault(st.pg_id, {})
    out: list[FrGroupAnalysis] = []
    dump_of = {d.rank: d for d in kept}
    for name in sorted(groups, key=lambda n: (not n.isdigit(), int(n) if n.isdigit() else 0, n)):
        by_rank = groups[name]
        desc = descs.get(name, "")
        ids = ids_of.get(name, set()) | ({name} if not by_rank else set())
        using = set(by_rank) | {
            d.rank for d in kept for st in d.status if st.pg_id in ids and (st.last_enqueued or 0) > 0
        }
        members, inferred = _members(name, desc, kept, using, world)
        pg_ids = ids_of.get(name, set())
        progress = [_progress(dump_of[r], name, by_rank.get(r, ()), pg_ids) for r in members if r in dump_of]
        no_dump = tuple(r for r in members if r not in dump_of)
        prog_map = {p.rank: p for p in progress}
        hang, lagging = _analyse_hang(name, progress, no_dump, by_rank, inferred)
        mismatch = _analyse_mismatch(by_rank, prog_map)
        progress += [FrRankProgress(r, 0, None, False, None, has_dump=False) for r in no_dump]
        out.append(FrGroupAnalysis(
            name=name,
            desc=desc,
            members=tuple(members),
            members_inferred=inferred,
            progress=tuple(sorted(progress, key=lambda p: p.rank)),
            hang=hang,
            lagging=lagging,
            mismatch=mismatch,
            dumps=tuple(sorted((r, dump_of[r].path) for r in members if r in dump_of)),
        ))
    return FrAnalysis(
        groups=tuple(out),
        ranks=tuple(sorted(dump_of)),
        world=world,
        warnings=tuple(warnings),
        dumps=tuple(sorted((d.rank, d.path) for d in kept)),
    )


# --------------------------------------------------------------------------------------------
# findings


def rank_list(ranks: Iterable[int]) -> str:
    """``0-2, 5, 7-9``."""
    values = sorted(set(ranks))
    parts: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{values[i]}-{values[j]}")
        else:
            parts.extend(str(v) for v in values[i : j + 1])
        i = j + 1
    return ", ".join(parts)


def _ranks_phrase(ranks: Sequence[int]) -> str:
    return f"rank {ranks[0]}" if len(ranks) == 1 else f"ranks {rank_list(ranks)}"


def _time(ns: int | None) -> datetime | None:
    if not ns or ns <= 0:
        return None
    try:
        return datetime.fromtimestamp(ns / 1e9, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _entry_time(by_rank: Mapping[int, Mapping[int, FrEntry]], rank: int, seq: int) -> datetime | None:
    e = by_rank.get(rank, {}).get(seq)
    return _time(e.time_created_ns) if e is not None else None


def _user_frame(entry: FrEntry | None) -> str | None:
    """The innermost frame outside torch, where the program called the collective."""
    if entry is None or not entry.frames:
        return None
    for fr in entry.frames:
        if "/torch/" not in fr.filename.replace("\\", "/"):
            return f"{fr.filename}:{fr.line} in {fr.name}"
    fr = entry.frames[0]
    return f"{fr.filename}:{fr.line} in {fr.name}"


def findings(analysis: FrAnalysis, dumps: Sequence[FrDump] = ()) -> list[Finding]:
    """Evidence from an analysis, in words:

    - ``flight_recorder.missing_rank`` (initiator, hang): a rank that never entered the collective
      the others wait in (or, with lower confidence, a member that left no dump while every other
      rank waits);
    - ``flight_recorder.waiting`` (collateral, hang): each rank waiting in it, with
      ``missing_ranks`` / ``last_completed`` / ``peer_rank`` fields for attribution;
    - ``flight_recorder.mismatch`` (initiator, collective_mismatch): the minority rank of the
      first collective the ranks disagree about (op, sizes or dtypes), with ``culprit_rank``;
      context instead when every rank completed it anyway, rank-less when no majority;
    - ``flight_recorder.mismatch_peer`` (collateral): each rank of the majority;
    - ``flight_recorder.lagging_rank`` (context): a rank behind the others while nobody waited.

    A missing-rank finding becomes context when a mismatch in the same group explains the stall.
    ``dumps`` (optional) adds the program's own frame of the stuck call to the finding's context."""
    entries_of: dict[str, dict[int, dict[int, FrEntry]]] = {}
    for d in dumps:
        for e in d.entries:
            if not e.is_p2p:
                entries_of.setdefault(e.pg_name, {}).setdefault(d.rank, {}).setdefault(e.collective_seq_id, e)
    out: list[Finding] = []
    for g in analysis.groups:
        by_rank = entries_of.get(g.name, {})
        paths = dict(g.dumps)
        prog = {p.rank: p for p in g.progress}
        label = g.label
        inferred = " (members inferred from the dumps)" if g.members_inferred else ""
        mismatch_explains = g.mismatch is not None and not g.mismatch.completed
        if g.hang is not None:
            h = g.hang
            what = f"{op_type(h.op)} #{h.seq} of {label}"
            base = [("pg", g.name), ("pg_desc", g.desc), ("seq", str(h.seq)), ("op", op_type(h.op)),
                    ("profiling_op", h.op), ("waiting_ranks", rank_list(h.waiting))]
            suspects = h.missing or h.no_dump
            when = _time(h.since_ns)
            for r in suspects:
                p = prog.get(r)
                has_dump = p is not None and p.has_dump
                if has_dump and p is not None:
                    last = by_rank.get(r, {}).get(p.entered)
                    last_txt = f"#{p.entered}" + (f" ({op_type(last.op)})" if last is not None else "")
                    state = "completed" if p.completed is not None and p.completed >= p.entered else "not completed"
                    text = (f"rank {r} never entered {what} that {_ranks_phrase(h.waiting)} wait in; its last "
                            f"collective there was {last_txt}, {state}{inferred}")
                    if p.entered == 0:
                        text = f"rank {r} never entered {what} that {_ranks_phrase(h.waiting)} wait in; it entered no collective there{inferred}"
                else:
                    text = (f"rank {r} left no Flight Recorder dump while {_ranks_phrase(h.waiting)} wait in {what}; "
                            f"it probably never entered it")
                if h.note:
                    text += f" ({h.note})"
                role = Role.INITIATOR
                confidence = h.confidence if has_dump else min(h.confidence, 0.6)
                if mismatch_explains:
                    role, confidence = Role.CONTEXT, min(confidence, 0.4)
                    text += f"; probably a consequence of the mismatched collective #{g.mismatch.seq}"  # type: ignore[union-attr]
                fields = [*base, ("missing_ranks", rank_list(suspects)), ("has_dump", "true" if has_dump else "false")]
                if p is not None and has_dump:
                    fields += [("last_entered", str(p.entered)), ("last_completed", str(p.completed if p.completed is not None else ""))]
                out.append(Finding(
                    rule=RULE_MISSING, role=role, cause=Cause.HANG,
                    severity=Severity.ERROR if role is Role.INITIATOR else Severity.INFO, text=text,
                    file=paths.get(r) or (paths.get(h.waiting[0]) if h.waiting else None), time=when, rank=r,
                    fields=tuple(fields), confidence=confidence,
                ))
            for w in () if mismatch_explains else h.waiting:  # the mismatch findings cover them
                p = prog[w]
                entry = by_rank.get(w, {}).get(h.seq)
                own = f"{op_type(entry.op)} #{h.seq} of {label}" if entry is not None else what
                if h.missing:
                    tail = f"; {_ranks_phrase(h.missing)} never entered it"
                elif h.no_dump:
                    tail = f"; {_ranks_phrase(h.no_dump)} left no dump"
                else:
                    tail = "; every rank entered it"
                text = (f"rank {w} waits in {own} (entered, not completed; last completed "
                        f"#{p.completed if p.completed is not None else '?'}){tail}")
                fields = [*base, ("missing_ranks", rank_list(suspects)),
                          ("last_completed", str(p.completed) if p.completed is not None else ""),
                          ("last_entered", str(p.entered))]
                if len(suspects) == 1:
                    fields.append(("peer_rank", str(suspects[0])))
                where = _user_frame(entry)
                out.append(Finding(
                    rule=RULE_WAITING, role=Role.COLLATERAL, cause=Cause.HANG, severity=Severity.WARNING,
                    text=text, file=paths.get(w), time=_entry_time(by_rank, w, h.seq) or when, rank=w,
                    fields=tuple(fields), context=(f"called at {where}",) if where else (),
                    confidence=h.confidence,
                ))
        elif g.lagging:
            top = max(p.entered for p in g.progress)
            ahead = [p.rank for p in g.progress if p.entered == top and p.has_dump]
            for r in g.lagging:
                p = prog[r]
                out.append(Finding(
                    rule=RULE_LAGGING, role=Role.CONTEXT, cause=None, severity=Severity.INFO,
                    text=(f"rank {r}'s last collective in {label} was #{p.entered} while {_ranks_phrase(ahead)} "
                          f"reached #{top}; no rank was waiting in a collective when the dumps were written"),
                    file=paths.get(r), rank=r,
                    fields=(("pg", g.name), ("seq", str(top)), ("last_entered", str(p.entered)),
                            ("last_completed", str(p.completed) if p.completed is not None else "")),
                    confidence=0.4,
                ))
        if g.mismatch is not None:
            m = g.mismatch
            where_txt = f"collective #{m.seq} of {label}"
            times = dict(m.times_ns)
            if m.expected is not None:
                for r, sig in m.culprits:
                    text = (f"rank {r} issued {sig.describe()} as {where_txt} where {_ranks_phrase(m.majority)} "
                            f"issued {m.expected.describe()}")
                    role, conf = Role.INITIATOR, 0.9 if len(m.culprits) == 1 else 0.75
                    if m.completed:
                        role, conf = Role.CONTEXT, 0.4
                        text += "; every rank completed it, so it is not what stopped the job"
                    if g.members_inferred:
                        conf = min(conf, 0.6)
                        text += inferred
                    out.append(Finding(
                        rule=RULE_MISMATCH, role=role, cause=Cause.COLLECTIVE_MISMATCH,
                        severity=Severity.ERROR if role is Role.INITIATOR else Severity.INFO, text=text,
                        file=paths.get(r), time=_time(times.get(r)), rank=r,
                        fields=(("pg", g.name), ("pg_desc", g.desc), ("seq", str(m.seq)), ("kind", m.kind),
                                ("op", op_type(sig.op)), ("expected_op", op_type(m.expected.op)),
                                ("culprit_rank", str(r)), ("majority_ranks", rank_list(m.majority)),
                                ("input_sizes", str([list(s) for s in sig.input_sizes])),
                                ("output_sizes", str([list(s) for s in sig.output_sizes])),
                                ("input_dtypes", ",".join(sig.input_dtypes)),
                                ("output_dtypes", ",".join(sig.output_dtypes))),
                        confidence=conf,
                    ))
                if not m.completed:
                    culprit_ranks = [r for r, _s in m.culprits]
                    for r in m.majority:
                        fields = [("pg", g.name), ("seq", str(m.seq)), ("kind", m.kind),
                                  ("op", op_type(m.expected.op))]
                        if len(culprit_ranks) == 1:
                            fields += [("culprit_rank", str(culprit_ranks[0])), ("peer_rank", str(culprit_ranks[0]))]
                        out.append(Finding(
                            rule=RULE_MISMATCH_PEER, role=Role.COLLATERAL, cause=Cause.COLLECTIVE_MISMATCH,
                            severity=Severity.WARNING,
                            text=(f"rank {r} issued {m.expected.describe()} as {where_txt}; "
                                  f"{_ranks_phrase(culprit_ranks)} issued something else"),
                            file=paths.get(r), time=_time(times.get(r)), rank=r, fields=tuple(fields),
                            confidence=0.9,
                        ))
            else:
                calls = "; ".join(f"rank {r}: {s.describe()}" for r, s in m.culprits)
                out.append(Finding(
                    rule=RULE_MISMATCH, role=Role.CONTEXT if m.completed else Role.INITIATOR,
                    cause=Cause.COLLECTIVE_MISMATCH, severity=Severity.ERROR,
                    text=f"the ranks issued different collectives as {where_txt} and no majority names the culprit: {calls}",
                    file=next(iter(paths.values()), None),
                    time=_time(min((t for t in times.values() if t), default=None)),
                    fields=(("pg", g.name), ("seq", str(m.seq)), ("kind", m.kind)),
                    confidence=0.4,
                ))
    return out


def summarise(analysis: FrAnalysis) -> list[str]:
    """One line per process group: last entered/completed collective per rank (for reports and
    debugging)."""
    lines = []
    for g in analysis.groups:
        cells = ", ".join(
            f"{p.rank}: {p.entered}/{p.completed if p.completed is not None else '?'}{' waiting' if p.waiting else ''}"
            if p.has_dump else f"{p.rank}: no dump"
            for p in g.progress
        )
        lines.append(f"{g.label}: last entered/completed collective per rank: {cells}")
    return lines
