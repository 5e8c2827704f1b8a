"""Safe YAML loading that remembers where each key came from.

Every mapping comes back as a :class:`YamlMap` (a dict) whose ``pos`` gives the line and column
of each key, so that configuration and rule errors can name ``file:line:column``. Refused with a
clear :class:`ConfigError`: anchors and aliases (no alias bombs), duplicate keys, tabs used for
indentation, files over ``max_bytes``, nesting deeper than ``MAX_DEPTH``, more than ``MAX_NODES``
values (a huge document), scalars the safe constructors reject (``!!int foo``), text that is
not UTF-8.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from detector.errors import ConfigError

MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64  # nesting of mappings and sequences; deeper documents are refused
# Scalars, mappings and sequences in one document. The largest shipped rule pack has ~1,600;
# pure-Python PyYAML composes ~15,000 a second, so a 4 MiB flow list (1.9 million nodes) would
# stall a rule reload for minutes: refused instead, after a few seconds at most.
MAX_NODES = 50_000


class YamlMap(dict[str, Any]):
    """A mapping from a YAML file; ``pos[key]`` is the (line, column) of the key, 1-based."""

    def __init__(self, line: int, column: int) -> None:
        super().__init__()
        self.line = line
        self.column = column
        self.pos: dict[str, tuple[int, int]] = {}

    def where(self, key: str | None = None) -> tuple[int, int]:
        if key is not None and key in self.pos:
            return self.pos[key]
        return (self.line, self.column)


class YamlList(list[Any]):
    """A sequence from a YAML file; ``pos[i]`` is the (line, column) of item i, 1-based."""

    def __init__(self, line: int, column: int) -> None:
        super().__init__()
        self.line = line
        self.column = column
        self.pos: list[tuple[int, int]] = []


def _mark(node: Node) -> tuple[int, int]:
    return (node.start_mark.line + 1, node.start_mark.column + 1)


_COLLECTION_TAGS = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")


def _build(node: Node, path: str, loader: yaml.SafeLoader | yaml.CSafeLoader) -> Any:
    if isinstance(node, MappingNode | SequenceNode) and node.tag not in _COLLECTION_TAGS:
        # mappings and sequences are built here, not by PyYAML's constructors: a tag such as
        # ``!!python/object/apply:os.system [...]`` would be silently dropped; refuse it instead
        line, col = _mark(node)
        raise ConfigError(path, line, f"could not determine a constructor for the tag '{node.tag}'", column=col)
    if isinstance(node, MappingNode):
        line, col = _mark(node)
        out = YamlMap(line, col)
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise ConfigError(path, key_node.start_mark.line + 1, "merge keys (<<) are not supported",
                                  column=key_node.start_mark.column + 1)
            key = _build(key_node, path, loader)
            if not isinstance(key, str):
                kl, kc = _mark(key_node)
                raise ConfigError(path, kl, f"keys must be strings, not {key!r}", column=kc)
            if key in out:
                kl, kc = _mark(key_node)
                first = out.pos[key][0]
                raise ConfigError(path, kl, f"duplicate key '{key}' (first at line {first})", column=kc)
            out.pos[key] = _mark(key_node)
            out[key] = _build(value_node, path, loader)
        return out
    if isinstance(node, SequenceNode):
        line, col = _mark(node)
        seq = YamlList(line, col)
        for item in node.value:
            seq.pos.append(_mark(item))
            seq.append(_build(item, path, loader))
        return seq
    if isinstance(node, ScalarNode):
        try:
            return loader.construct_object(node, deep=True)
        except (ValueError, TypeError, AttributeError, OverflowError):
            # PyYAML's safe constructors fail this way on ``!!int foo``, ``!!timestamp foo``
            line, col = _mark(node)
            tag = node.tag.rsplit(":", 1)[-1]
            raise ConfigError(path, line, f"invalid {tag} value {node.value[:80]!r}", column=col) from None
    raise ConfigError(path, _mark(node)[0], "unsupported YAML node")  # pragma: no cover


class _NoAliasLoader(yaml.SafeLoader):
    depth = 0
    nodes = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        self.nodes += 1
        if self.depth >= MAX_DEPTH or self.nodes > MAX_NODES:
            event = self.peek_event()  # type: ignore[no-untyped-call]
            what = (f"nested more than {MAX_DEPTH} levels deep" if self.depth >= MAX_DEPTH
                    else f"more than {MAX_NODES} values in one document")
            raise ConfigError(str(self.name), event.start_mark.line + 1, f"{what}; refusing to parse it",
                              column=event.start_mark.column + 1)
        self.depth += 1
        try:
            return self._compose_checked(parent, index)
        finally:
            self.depth -= 1

    def _compose_checked(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise ConfigError(
                str(self.name),
                event.start_mark.line + 1,
                "YAML aliases (*name) are not allowed",
                column=event.start_mark.column + 1,
            )
        event = self.peek_event()  # type: ignore[no-untyped-call]
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise ConfigError(
                str(self.name),
                event.start_mark.line + 1,
                f"YAML anchors (&{anchor}) are not allowed",
                column=event.start_mark.column + 1,
            )
        return super().compose_node(parent, index)


_FAST = bool(getattr(yaml, "__with_libyaml__", False))
_NODE_EVENTS = (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)
_END_EVENTS = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _at(event: Any) -> tuple[int | None, int | None]:
    mark = getattr(event, "start_mark", None)
    return (mark.line + 1, mark.column + 1) if mark is not None else (None, None)


def _check_events(text: str, path: str) -> None:
    """The checks of :class:`_NoAliasLoader` made on libyaml's event stream (no recursion, no
    nodes built): aliases, anchors, nesting deeper than MAX_DEPTH, more than MAX_NODES values."""
    loader = yaml.CSafeLoader(text)
    try:
        depth = nodes = 0
        while True:
            event = loader.get_event()
            if isinstance(event, yaml.StreamEndEvent):
                return
            if isinstance(event, yaml.AliasEvent):
                line, column = _at(event)
                raise ConfigError(path, line, "YAML aliases (*name) are not allowed", column=column)
            if isinstance(event, _NODE_EVENTS):
                nodes += 1
                if depth >= MAX_DEPTH or nodes > MAX_NODES:
                    what = (f"nested more than {MAX_DEPTH} levels deep" if depth >= MAX_DEPTH
                            else f"more than {MAX_NODES} values in one document")
                    line, column = _at(event)
                    raise ConfigError(path, line, f"{what}; refusing to parse it", column=column)
                if event.anchor is not None:
                    line, column = _at(event)
                    raise ConfigError(path, line, f"YAML anchors (&{event.anchor}) are not allowed", column=column)
                if not isinstance(event, yaml.ScalarEvent):
                    depth += 1
            elif isinstance(event, _END_EVENTS):
                depth -= 1
            elif isinstance(event, yaml.DocumentEndEvent):
                nodes = 0
    finally:
        loader.dispose()


def _compose(text: str, path: str) -> tuple[Node | None, Any]:
    """The document's node graph and a loader to construct its scalars: libyaml's C parser where
    PyYAML has it (ten times faster than pure Python: every start-up loads the rule packs),
    after the same checks on its event stream; else the checking pure-Python loader."""
    if _FAST:
        _check_events(text, path)
        fast = yaml.CSafeLoader(text)
        try:
            return fast.get_single_node(), fast
        except BaseException:
            fast.dispose()
            raise
    try:
        loader = _NoAliasLoader(text)
    except yaml.YAMLError as exc:  # the reader refuses control characters (NUL, ...) up front
        raise ConfigError(path, None, f"invalid YAML: {str(exc).splitlines()[0]}") from None
    loader.name = path
    return loader.get_single_node(), loader


def loads_yaml(text: str, path: str, *, max_bytes: int = MAX_BYTES) -> Any:
    """Parse YAML text; returns YamlMap/YamlList/scalars. Raises ConfigError on any problem."""
    if len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise ConfigError(path, None, f"file is larger than {max_bytes} bytes; refusing to parse it")
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.lstrip(" ")
        if stripped.startswith("\t"):
            raise ConfigError(path, number, "tab used for indentation; YAML needs spaces",
                              column=len(raw) - len(stripped) + 1)
    loader: Any = None
    try:
        node, loader = _compose(text, path)
        if node is None:
            return None
        return _build(node, path, loader)
    except ConfigError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise ConfigError(path, line, f"invalid YAML: {problem}", column=column) from None
    except yaml.YAMLError as exc:
        raise ConfigError(path, None, f"invalid YAML: {str(exc).splitlines()[0]}") from None
    except (ValueError, TypeError, AttributeError, OverflowError) as exc:
        # a scalar PyYAML's safe constructors reject without a marked error:
        # ``!!int foo``, ``!!float x``, ``!!timestamp 2026-13-45``, ``!!timestamp foo``
        raise ConfigError(path, None, f"invalid YAML value: {type(exc).__name__}: {str(exc)[:200]}") from None
    except RecursionError:
        raise ConfigError(path, None, "nested too deeply; refusing to parse it") from None
    finally:
        if loader is not None:
            loader.dispose()


def load_yaml_file(path: Path, *, max_bytes: int = MAX_BYTES) -> Any:
    """Read and parse a YAML file with the checks of :func:`loads_yaml`: a regular file (or a pipe
    handed over as a path) read with a bound (:func:`~detector.support.userfile.read_user_file`),
    its problems as :class:`ConfigError` naming the file."""
    from detector.errors import InputError
    from detector.support.userfile import read_user_file

    name = str(path)
    if path.is_dir():
        raise ConfigError(name, None, "is a directory, not a YAML file")
    try:
        raw = read_user_file(path, max_bytes)
    except InputError as exc:
        detail = exc.detail
        if detail.startswith("larger than"):
            detail = f"file is larger than {max_bytes} bytes; refusing to parse it"
        raise ConfigError(name, None, detail) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(name, line, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})") from None
    return loads_yaml(text, name, max_bytes=max_bytes)
