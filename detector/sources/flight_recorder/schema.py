"""Plain values (a decoded dump) -> :class:`~detector.sources.flight_recorder.dump.FrDump`: every
field checked for its type and bounded; anything else raises :class:`FrDumpError` naming the
field."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from detector.sources.flight_recorder.decode import clip
from detector.sources.flight_recorder.dump import (
    MAX_DIMS,
    MAX_FRAMES,
    MAX_GROUPS,
    MAX_RANK,
    MAX_TENSORS,
    MAX_TEXT,
    DumpFormat,
    FrDump,
    FrDumpError,
    FrEntry,
    FrFrame,
    FrGroupConfig,
    FrGroupStatus,
)

_INT64 = 1 << 63
_VERSION = re.compile(r"^(\d{1,4})\.(\d{1,4})$")
_RANKS_TEXT = re.compile(r"^\[\s*(?:\d{1,7}\s*(?:,\s*\d{1,7}\s*)*)?\]$")


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


def build_dump(raw: object, *, where: str, rank: int, fmt: DumpFormat, max_entries: int) -> FrDump:
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
            raise c.fail("version", f"expected 'major.minor', got {clip(version)!r}")
        if int(m.group(1)) != 2:
            warnings.append(f"{where}: format version {version} (this reader knows 2.x); read as 2.x")
    configs: list[FrGroupConfig] = []
    for name, cfg in c.as_dict(top.get("pg_config", {}), "pg_config").items():
        if len(configs) >= MAX_GROUPS:
            raise c.fail("pg_config", f"more than {MAX_GROUPS} process groups")
        cp = f"pg_config[{clip(name, 40)!r}]"
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
        sp = f"pg_status[{clip(pg_id, 40)!r}]"
        sd = c.as_dict(st, sp)
        status.append(FrGroupStatus(
            pg_id=clip(pg_id, 256),
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
