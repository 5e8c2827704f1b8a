"""Load, validate and compile rule files. Everything is checked before anything runs: schema
(unknown keys rejected), ids, causes, patterns (compile, not empty-matching, no catastrophic
backtracking), examples and counterexamples. Problems name ``file:line:column: rule-id: what``."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from detector.errors import ConfigError
from detector.rules import USER_RULES_ENV
from detector.rules.linearity import superlinear_risk
from detector.rules.prefilter import prefilter_pattern
from detector.rules.safety import backtracking_risk
from detector.support.userfile import refused
from detector.support.yamlfile import load_yaml_file
from detector.types import Cause, Role, Severity, StreamKind

# pydantic (the rule-file schema) and the YAML reader are imported where rule files are read:
# a command whose rules come from the rule cache (detector.rules.cache) never loads them
if TYPE_CHECKING:
    from detector.rules.spec import RuleFile, RuleSpec

PATTERN_FLAGS = re.ASCII


class LazyRegex:
    """A rule's compiled pattern that a pickle (the rule cache) carries as its text and compiles
    again only when first used: a start from the cache then compiles the few patterns the input
    needs, not all ~300 (about 50 ms of a paste's replay)."""

    __slots__ = ("_regex", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0, compiled: re.Pattern[str] | None = None) -> None:
        self.pattern = pattern
        self.flags = flags
        self._regex = compiled

    def __reduce__(self) -> tuple[Any, ...]:
        return LazyRegex, (self.pattern, self.flags)

    def __repr__(self) -> str:
        return f"LazyRegex({self.pattern!r})"

    @property
    def compiled(self) -> re.Pattern[str]:
        regex = self._regex
        if regex is None:
            try:
                regex = self._regex = re.compile(self.pattern, self.flags)
            except re.error as exc:  # a trusted pack edited in place (rules/compile.load_ruleset)
                raise ConfigError("rule pattern", None, f"does not compile: {exc}: {self.pattern[:200]!r}") from None
            except (RecursionError, OverflowError) as exc:
                detail = TOO_DEEP if isinstance(exc, RecursionError) else f"does not compile: {exc}"
                raise ConfigError("rule pattern", None, f"{detail}: {self.pattern[:200]!r}") from None
        return regex

    @property
    def groupindex(self) -> Mapping[str, int]:
        return self.compiled.groupindex

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.search(text, pos)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.match(text, pos)


def lazy_pattern(pattern: str) -> LazyRegex:
    """A rule pattern compiled now (so that a broken one fails at load) and carried lazily."""
    return LazyRegex(pattern, PATTERN_FLAGS, compile_pattern(pattern))


@dataclass(frozen=True, slots=True)
class CompiledRule:
    id: str
    description: str
    source: str  # rank_log | kernel | any
    role: Role
    cause: Cause | None
    severity: Severity
    pattern: str
    regex: LazyRegex
    fallback: bool
    window_next: LazyRegex | None
    window_within: int
    context_lines: int
    confidence: float
    path: str
    line: int
    examples: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    counterexamples: tuple[str, ...] = ()
    unless: LazyRegex | None = None  # a line this matches does not count (spec.unless)

    def applies_to(self, kind: StreamKind) -> bool:
        """``rank_log`` rules match rank logs; ``kernel`` rules match kernel logs and the kernel
        lines pasted into a rank log (``dmesg`` output beside the training log); ``any`` both."""
        return self.source == "any" or self.source == kind.value or (self.source == "kernel" and kind is StreamKind.RANK_LOG)


@dataclass(frozen=True, slots=True)
class RuleOrigin:
    rule_id: str
    path: str
    overrides: str | None = None  # path of the shipped rule this one overrides
    disabled: bool = False


@dataclass
class LoadResult:
    rules: list[CompiledRule] = field(default_factory=list)
    problems: list[ConfigError] = field(default_factory=list)
    origins: list[RuleOrigin] = field(default_factory=list)


def shipped_rules_dir() -> Path:
    """The rule packs shipped with rankdoctor: ``detector/rulepacks/`` inside an installed wheel,
    else the top-level ``rules/`` of a source checkout (an editable install)."""
    here = Path(__file__).resolve()
    for candidate in (here.parents[1] / "rulepacks", here.parents[2] / "rules"):
        if candidate.is_dir() and any(candidate.glob("*.yaml")):
            return candidate
    return here.parents[2] / "rules"




def user_rule_paths(given: Sequence[Path] | None, environ: Mapping[str, str] | None = None) -> list[Path]:
    """The user's rule layers: those given (``--rules``), or else those in ``$RANKDOCTOR_RULES``
    (one setting for ``replay``, ``watch`` and ``rules``: the rules an operator tested are the
    rules the commands run)."""
    if given:
        return list(given)
    env = (os.environ if environ is None else environ).get(USER_RULES_ENV, "")
    return [Path(p) for p in env.split(os.pathsep) if p]


def rule_files(paths: Iterable[Path]) -> list[Path]:
    """Expand directories into their ``*.yaml``/``*.yml`` files (sorted). A path that names a
    device, a FIFO or a socket is left out (nothing reads it: :func:`load_rules` says why)."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(q for q in p.iterdir() if q.suffix in (".yaml", ".yml") and q.is_file()))
        elif refused(p) is None:
            out.append(p)
    return out


def _loc_position(data: Any, loc: Sequence[int | str]) -> tuple[int | None, int | None, str | None]:
    """Walk a pydantic error location through the YAML tree to a (line, column, rule id)."""
    from detector.support.yamlfile import YamlList, YamlMap

    node: Any = data
    line: int | None = getattr(data, "line", None)
    column: int | None = getattr(data, "column", None)
    rule_id: str | None = None
    for part in loc:
        if isinstance(node, YamlMap) and isinstance(part, str):
            if part in node.pos:
                line, column = node.pos[part]
            node = node.get(part)
        elif isinstance(node, YamlList) and isinstance(part, int) and 0 <= part < len(node):
            line, column = node.pos[part]
            node = node[part]
            if isinstance(node, YamlMap) and isinstance(node.get("id"), str) and rule_id is None:
                rule_id = node["id"]
        else:
            break
    return line, column, rule_id


def _parse_file(path: Path) -> tuple[RuleFile | None, Any, list[ConfigError]]:
    from pydantic import ValidationError

    from detector.rules.spec import RuleFile
    from detector.support.yamlfile import YamlMap

    name = str(path)
    try:
        data = load_yaml_file(path)
    except ConfigError as exc:
        return None, None, [exc]
    if data is None:
        return None, None, [ConfigError(name, None, "file is empty: expected a 'rules:' list")]
    if not isinstance(data, YamlMap):
        return None, data, [ConfigError(name, 1, "expected a mapping with a 'rules:' list at the top")]
    try:
        return RuleFile.model_validate(dict(data)), data, []
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            line, column, rule_id = _loc_position(data, loc)
            what = ".".join(str(p) for p in loc if not isinstance(p, int) or len(loc) <= 2)
            msg = err["msg"]
            if err["type"] == "extra_forbidden":
                msg = f"unknown key '{loc[-1]}'"
            elif "input" in err and isinstance(err["input"], str | int | float | bool):
                shown = repr(err["input"])
                if len(shown) > 200:
                    shown = shown[:200] + f"... ({len(shown)} characters)"
                msg = f"{what}: {msg} (got {shown})"
            else:
                msg = f"{what}: {msg}"
            problems.append(ConfigError(name, line, msg, column=column, rule_id=rule_id))
        return None, data, problems


def _rule_position(data: Any, index: int, key: str | None = None) -> tuple[int | None, int | None]:
    from detector.support.yamlfile import YamlList, YamlMap

    rules = data.get("rules") if isinstance(data, YamlMap) else None
    if isinstance(rules, YamlList) and index < len(rules):
        item = rules[index]
        if isinstance(item, YamlMap):
            return item.where(key)
        return rules.pos[index]
    return None, None


TOO_DEEP = "pattern nests too deeply (groups inside groups, hundreds deep)"


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """The pattern compiled; re.error also for one that nests too deeply for Python's parser
    (hundreds of groups in groups: RecursionError) or whose numbers overflow it."""
    try:
        return re.compile(pattern, PATTERN_FLAGS)
    except RecursionError:
        raise re.error(TOO_DEEP) from None
    except OverflowError as exc:  # "a{99999999999}"
        raise re.error(str(exc)) from None


_OPEN_REPEAT = re.compile(r"(?<!\\)\{,\d*\}")  # Python's "{,n}"


def pattern_problems(pattern: str) -> list[str]:
    """What is wrong with a pattern, if anything (shared by the loader and `rules validate`)."""
    try:
        regex = compile_pattern(pattern)
    except re.error as exc:
        return [TOO_DEEP if str(exc) == TOO_DEEP else f"pattern does not compile: {exc}"]
    try:
        return _checked(pattern, regex)
    except (RecursionError, OverflowError):  # compiled, but too deep for the checks' own parsing
        return [TOO_DEEP]


def _checked(pattern: str, regex: re.Pattern[str]) -> list[str]:
    problems = []
    if "^" in pattern[1:].replace("\\^", "").replace("[^", ""):
        problems.append("'^' is only allowed as the first character of a pattern")
    if regex.search("") is not None:
        problems.append("pattern matches an empty line")
    risk = backtracking_risk(pattern) or superlinear_risk(pattern)
    if risk:
        problems.append(f"pattern risks catastrophic backtracking: {risk}")
    if _OPEN_REPEAT.search(pattern):
        problems.append("'{,n}' is a repeat of 0 to n for Python but literal text for hyperscan and RE2, so lines "
                        "would be missed: write '{0,n}'")
    try:
        re.compile(prefilter_pattern(pattern).encode("utf-8"), re.MULTILINE)
    except re.error as exc:
        problems.append(f"the re prefilter cannot compile this pattern: {exc} (write inline flags as a scoped group, e.g. '(?i:...)')")
    return problems


def _compile_rule(spec: RuleSpec, path: str, line: int, data: Any, index: int,
                  *, trusted: bool = False) -> tuple[CompiledRule | None, list[ConfigError]]:
    """One rule checked and compiled. ``trusted``: a rule of the packs shipped with the package,
    whose patterns, examples and counterexamples ``rankdoctor rules validate --strict`` and the
    test suite check; replay then skips those checks (each compiles the pattern: about half of a
    first start's time) and compiles a pattern when it is first used."""
    problems: list[ConfigError] = []

    def err(detail: str, key: str | None = None) -> None:
        ln, col = _rule_position(data, index, key)
        problems.append(ConfigError(path, ln if ln is not None else line, detail, column=col, rule_id=spec.id))

    if spec.disabled:
        return None, []
    for key in ("description", "pattern", "role"):
        if getattr(spec, key) is None:
            err(f"missing required key '{key}'")
    if problems:
        return None, problems
    assert spec.pattern is not None and spec.role is not None and spec.description is not None
    if spec.role is Role.INITIATOR and spec.cause is None:
        err("an initiator rule needs a 'cause'", "role")
    for p in () if trusted else pattern_problems(spec.pattern):
        err(f"{p}: {spec.pattern[:200]!r}", "pattern")
    def extra_regex(text: str | None, name: str, key: str) -> LazyRegex | None:
        """A regex the rule searches beside its pattern (window.next in following lines, unless
        in each line the pattern matches): compiled, with the pattern's backtracking checks."""
        if text is None:
            return None
        if trusted:
            return LazyRegex(text, PATTERN_FLAGS)
        try:
            compiled = lazy_pattern(text)
        except re.error as exc:
            err(f"{name} does not compile: {exc}" if str(exc) != TOO_DEEP else f"{name}: {TOO_DEEP}", key)
            return None
        try:
            risk = backtracking_risk(text) or superlinear_risk(text)
        except (RecursionError, OverflowError):
            err(f"{name}: {TOO_DEEP}", key)
            return None
        if risk:
            err(f"{name} risks catastrophic backtracking: {risk}: {text[:200]!r}", key)
        return compiled

    window_next = extra_regex(spec.window.next if spec.window is not None else None, "window.next", "window")
    unless = extra_regex(spec.unless, "unless", "unless")
    if not spec.examples:
        err("a rule needs at least one example line", "examples" if "examples" in (data or {}) else None)
    if problems:
        return None, problems
    regex = LazyRegex(spec.pattern, PATTERN_FLAGS) if trusted else lazy_pattern(spec.pattern)
    for n, ex in enumerate(() if trusted else spec.examples):
        m = regex.search(ex.line)
        if m is None:
            err(f"example {n + 1} does not match: {ex.line[:200]!r}", "examples")
            continue
        if unless is not None and unless.search(ex.line) is not None:
            err(f"example {n + 1} matches 'unless', so it would not count: {ex.line[:200]!r}", "examples")
            continue
        groups = {k: v for k, v in m.groupdict().items() if v is not None}
        for key, want in ex.fields.items():
            got = groups.get(key)
            if got != want:
                err(f"example {n + 1}: field '{key}' is {got!r}, expected {want!r}", "examples")
    for n, counter in enumerate(() if trusted else spec.counterexamples):
        if regex.search(counter) is not None and (unless is None or unless.search(counter) is None):
            err(f"counterexample {n + 1} matches but must not: {counter[:200]!r}", "counterexamples")
    if problems:
        return None, problems
    return (
        CompiledRule(
            id=spec.id,
            description=spec.description,
            source=spec.source,
            role=spec.role,
            cause=spec.cause,
            severity=spec.severity,
            pattern=spec.pattern,
            regex=regex,
            fallback=spec.fallback,
            window_next=window_next,
            window_within=spec.window.within if spec.window else 0,
            context_lines=spec.context_lines,
            confidence=spec.confidence,
            path=path,
            line=line,
            examples=tuple((e.line, tuple(sorted(e.fields.items()))) for e in spec.examples),
            counterexamples=tuple(spec.counterexamples),
            unless=unless,
        ),
        [],
    )


def _load_layer(files: Sequence[Path], result: LoadResult,
                *, trusted: bool = False) -> dict[str, tuple[CompiledRule | None, RuleSpec, str]]:
    """Load one layer (shipped, or one user directory): id -> (compiled or None if disabled, spec, path).
    ``trusted``: the package's own packs (see :func:`_compile_rule`)."""
    layer: dict[str, tuple[CompiledRule | None, RuleSpec, str]] = {}
    for path in files:
        parsed, data, problems = _parse_file(path)
        result.problems.extend(problems)
        if parsed is None:
            continue
        for index, spec in enumerate(parsed.rules):
            line, _ = _rule_position(data, index)
            if spec.id in layer:
                first = layer[spec.id][2]
                result.problems.append(
                    ConfigError(str(path), line, f"duplicate rule id (also in {first})", rule_id=spec.id)
                )
                continue
            compiled, rule_problems = _compile_rule(spec, str(path), line or 0, data, index, trusted=trusted)
            result.problems.extend(rule_problems)
            if rule_problems:
                continue
            layer[spec.id] = (compiled, spec, str(path))
    return layer


def load_rules(shipped: Sequence[Path] | None = None, user: Sequence[Path] = (),
               *, trust_shipped: bool = False) -> LoadResult:
    """Load the shipped packs, then each user path as a layer over them: a user rule replaces a
    shipped rule with the same id, or disables it with ``disabled: true``.

    ``trust_shipped``: the package's own packs (``shipped`` None) skip the pattern, example and
    counterexample checks that ``rankdoctor rules validate`` and the tests make of them; a user's
    rules are always checked."""
    result = LoadResult()
    shipped_files = rule_files(shipped if shipped is not None else [shipped_rules_dir()])
    for named in shipped or ():
        why = refused(named)  # (left out by rule_files: a device never ends, a FIFO's open waits)
        if why is not None:
            result.problems.append(ConfigError(str(named), None, why))
    merged = _load_layer(shipped_files, result, trusted=trust_shipped and shipped is None)
    for rid, (_, _, path) in merged.items():
        result.origins.append(RuleOrigin(rid, path, disabled=merged[rid][0] is None))
    for user_path in user:
        if not user_path.exists():
            result.problems.append(ConfigError(str(user_path), None, "no such file or directory"))
            continue
        why = refused(user_path)
        if why is not None:  # a device never ends, a FIFO's open waits for a writer
            result.problems.append(ConfigError(str(user_path), None, why))
            continue
        files = rule_files([user_path])
        if user_path.is_dir() and not files:
            result.problems.append(ConfigError(str(user_path), None, "directory holds no .yaml rule files"))
        layer = _load_layer(files, result)
        for rid, entry in layer.items():
            before = merged.get(rid)
            merged[rid] = entry
            result.origins = [o for o in result.origins if o.rule_id != rid]
            result.origins.append(
                RuleOrigin(rid, entry[2], overrides=before[2] if before else None, disabled=entry[0] is None)
            )
    result.rules = [c for c, _, _ in merged.values() if c is not None and not c.id.startswith("_")]
    return result



def rules_one_by_one(path: Path) -> tuple[list[CompiledRule], list[ConfigError]]:
    """Each rule of one file checked on its own (schema, pattern, examples): the rules that
    pass, and the problems of the others. When a file fails the schema, :func:`load_rules`
    reports the schema errors and skips the whole file; ``rankdoctor rules validate`` uses this
    to report every other rule's problems in the same run. Schema errors and problems of the
    file itself (YAML, top level) are left to :func:`load_rules`."""
    from pydantic import ValidationError

    from detector.rules.spec import RuleSpec
    from detector.support.yamlfile import YamlList, YamlMap

    try:
        data = load_yaml_file(path)
    except ConfigError:
        return [], []
    rules = data.get("rules") if isinstance(data, YamlMap) else None
    if not isinstance(rules, YamlList):
        return [], []
    compiled: list[CompiledRule] = []
    problems: list[ConfigError] = []
    for index, item in enumerate(rules):
        if not isinstance(item, YamlMap):
            continue
        try:
            spec = RuleSpec.model_validate(dict(item))
        except ValidationError:
            continue  # reported by the file-level schema check
        line, _ = _rule_position(data, index)
        rule, found = _compile_rule(spec, str(path), line or 0, data, index)
        problems.extend(found)
        if rule is not None:
            compiled.append(rule)
    return compiled, problems
