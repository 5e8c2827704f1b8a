"""Bytes -> plain values, safely. A pickle is never given to ``pickle.load`` as such: its opcodes
are checked first against the few that torch's pickler emits (:func:`_prescan`: nothing can be
imported or called), container nesting and memo indexes are bounded, and only then is it
unpickled by an unpickler that refuses every class and persistent id. JSON is decoded with its
nesting bounded."""

from __future__ import annotations

import io
import json
import pickle
import pickletools
from collections.abc import Iterable
from typing import Any

from detector.sources.flight_recorder.dump import FrDumpError

MAX_TUPLE_DEPTH = 8
MAX_MEMO = 1 << 24

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


def clip(text: str, limit: int = 80) -> str:
    """``text`` made printable and cut at ``limit`` characters, to quote in an error."""
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
                    what = f" {clip(str(arg))!r}" if name in ("GLOBAL", "INST") and arg is not None else ""
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
        raise FrDumpError(where, f"not a valid pickle: {clip(detail, 160)}") from None
    if end < 0:
        raise FrDumpError(where, "truncated pickle (the file ends before the dump does)")
    if end != len(data):
        raise FrDumpError(where, f"{len(data) - end} bytes of trailing data after the pickle")


class _PlainUnpickler(pickle.Unpickler):
    """Second line of defence: refuses every class and persistent id."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused to import {clip(module)}.{clip(name)}")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused a persistent id")


def safe_unpickle(data: bytes, where: str) -> Any:
    if len(data) < 2 or data[0] != 0x80 or not 2 <= data[1] <= 5:
        raise FrDumpError(where, "not a pickle of protocol 2-5 (torch writes protocol 2)")
    _prescan(data, where)
    try:
        return _PlainUnpickler(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError, AttributeError,
            OverflowError, MemoryError, RecursionError) as exc:
        raise FrDumpError(where, f"unreadable pickle: {clip(str(exc), 160)}") from None


def load_json(data: bytes, where: str) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FrDumpError(where, "JSON dump is not valid UTF-8") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise FrDumpError(where, "JSON nested too deeply") from None
    except ValueError as exc:
        raise FrDumpError(where, f"not valid JSON (truncated?): {clip(str(exc), 160)}") from None
