"""Checks for rule authors beyond what the loader does, the rule table and the JSON Schema.

The loader (loader.py) already refuses what would make a rule wrong: schema, ids, causes,
patterns that do not compile, match an empty line or risk catastrophic backtracking, examples
and counterexamples. :func:`validate_rules` adds what only matters once the rules run together:

- every pattern compiles for the ``re`` prefilter, which wraps each pattern in ``(?:…)`` and
  joins them into one bytes alternation (a leading ``(?i)`` or a backreference breaks it);
- no pattern has a super-linear shape the static backtracking check misses (linearity.py);
- hyperscan accepts each pattern; one it refuses is named, with a note that the ``re``
  prefilter is then used for it (a *warning*: matching stays correct, only slower);
- no pattern makes hyperscan's scan far slower than the others: each is timed alone over a
  sample made of every loaded rule's examples and counterexamples (a *warning* at 100 times the
  median pattern's time: nested or wide counted repeats such as ``(?:[^ ]{1,48}[ |]{1,64}){0,12}``
  build an automaton that scans hundreds of times slower, and the whole replay with it);
- the prefilter, built for the whole set as a replay builds it, finds every example line for its
  rule (an *error* where it does not although ``re`` matches: the rule would never match in a
  replay; a shipped rule hidden only once the user rules are compiled with it is blamed on them);
- a rule that says ``disabled: true`` holds nothing else (the loader would keep such a rule
  active); a user rule that disables an id disables one that exists, and a user rule does not
  silently replace one of an earlier user layer (warnings).

Every problem is a :class:`ConfigError` that formats as ``file:line:column: rule-id: detail``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from detector.errors import ConfigError
from detector.rules.engine import STRUCTURAL
from detector.rules.linearity import superlinear_risk
from detector.rules.loader import (
    CompiledRule,
    LoadResult,
    load_rules,
    rule_files,
    rules_one_by_one,
    shipped_rules_dir,
)
from detector.rules.prefilter import MIN_LITERAL, prefilter_pattern, required_literals
from detector.rules.rewrite import relaxed, trimmed
from detector.rules.scanners import RePrefilter, linear_twin
from detector.rules.spec import RuleFile
from detector.support.yamlfile import YamlList, YamlMap, load_yaml_file

MAX_DETAIL = 300  # longer details (a 1 MB pattern quoted back) are cut
SCHEMA_URL = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True, slots=True)
class Validation:
    """The outcome of checking a set of rule layers."""

    result: LoadResult
    errors: tuple[ConfigError, ...]
    warnings: tuple[ConfigError, ...]
    files: tuple[Path, ...]
    hyperscan_checked: bool

    @property
    def ok(self) -> bool:
        return not self.errors


def clip(problem: ConfigError, limit: int = MAX_DETAIL) -> ConfigError:
    """The same problem with its detail cut to ``limit`` characters."""
    if len(problem.detail) <= limit:
        return problem
    detail = f"{problem.detail[:limit]}… ({len(problem.detail)} characters in all)"
    return ConfigError(problem.path, problem.line, detail, column=problem.column, rule_id=problem.rule_id)


def _quote(text: str, limit: int = 120) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def re_prefilter_problem(pattern: str) -> str | None:
    """Why the ``re`` prefilter cannot take ``pattern``, or None."""
    if re.search(r"\\[1-9]|\(\?P=", pattern):
        return "backreferences are not supported: the prefilter joins all patterns into one, which renumbers groups"
    body = prefilter_pattern(pattern)
    try:
        re.compile(f"(?:{body})".encode(), re.MULTILINE)
    except (re.error, UnicodeEncodeError) as exc:
        hint = ""
        if "global flags" in str(exc):
            hint = "; write flags as a scoped group, e.g. '(?i:...)' instead of '(?i)...'"
        return f"the re prefilter cannot compile this pattern: {exc}{hint}"
    return None


@functools.lru_cache(maxsize=4096)
def _hyperscan_database(pattern: str) -> tuple[Any, str | None]:
    """``pattern`` alone in a block-mode database, compiled as the engine compiles it, or None and
    why hyperscan refuses it (ImportError without hyperscan)."""
    import hyperscan

    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    try:
        db.compile(expressions=[relaxed(trimmed(prefilter_pattern(pattern))).encode("utf-8")], ids=[0],
                   flags=[hyperscan.HS_FLAG_MULTILINE])
    except hyperscan.error as exc:
        return None, str(exc) or type(exc).__name__
    return db, None


def hyperscan_problem(pattern: str) -> str | None:
    """Why hyperscan refuses ``pattern`` as the engine would give it, or None (also None when
    hyperscan is not installed: see :func:`hyperscan_available`)."""
    try:
        return _hyperscan_database(pattern)[1]
    except ImportError:
        return None


SCAN_COST_LIMIT = 100  # times the median pattern's scan time: shipped patterns stay under 40
SCAN_COST_FLOOR = 0.0005  # seconds over the sample below which no pattern is called slow


def _scan_seconds(pattern: str, sample: bytes) -> float | None:
    """The shortest of three hyperscan scans of ``sample`` for ``pattern`` alone, or None where
    hyperscan refuses it (reported on its own)."""
    import time

    import hyperscan

    db, _refused = _hyperscan_database(pattern)
    if db is None:
        return None
    scratch = hyperscan.Scratch(db)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        db.scan(sample, match_event_handler=_ignore_match, scratch=scratch)
        best = min(best, time.perf_counter() - start)
    return best


def _ignore_match(*_args: Any) -> None:
    return None


def scan_cost_sample(rules: Sequence[CompiledRule]) -> bytes:
    """Log text to time the patterns over: every rule's examples and counterexamples, one a line
    (the shipped rules' come to about 250 KB of lines of every kind the rules are about)."""
    lines = [line for rule in rules for line, _fields in rule.examples]
    lines += [line for rule in rules for line in rule.counterexamples]
    return ("\n".join(lines) + "\n").encode("utf-8", "replace")


def slow_patterns(rules: Sequence[CompiledRule]) -> list[tuple[CompiledRule, float]]:
    """Each rule whose pattern hyperscan scans at least :data:`SCAN_COST_LIMIT` times slower than
    the median rule's over :func:`scan_cost_sample`, with that ratio (needs hyperscan)."""
    sample = scan_cost_sample(rules)
    if not sample.strip():
        return []
    timed = [(rule, _scan_seconds(rule.pattern, sample)) for rule in rules]
    costs = sorted(t for _rule, t in timed if t is not None)
    if not costs:
        return []
    median = max(costs[len(costs) // 2], 1e-9)
    return [(rule, t / median) for rule, t in timed
            if t is not None and t >= SCAN_COST_FLOOR and t / median >= SCAN_COST_LIMIT]


def hyperscan_available() -> bool:
    try:
        import hyperscan  # noqa: F401
    except ImportError:
        return False
    return True


class _Positions:
    """Where each rule of each file is: (path, id) -> the rule's YAML mapping. Files are parsed
    again only when a problem needs a position (the loader keeps no YAML tree)."""

    def __init__(self) -> None:
        self._files: dict[str, dict[str, YamlMap]] = {}

    def rules_of(self, path: str) -> dict[str, YamlMap]:
        if path not in self._files:
            found: dict[str, YamlMap] = {}
            try:
                data = load_yaml_file(Path(path))
            except ConfigError:
                data = None  # the loader reports it
            rules = data.get("rules") if isinstance(data, YamlMap) else None
            for item in rules if isinstance(rules, YamlList) else ():
                if isinstance(item, YamlMap) and isinstance(item.get("id"), str):
                    found.setdefault(item["id"], item)
            self._files[path] = found
        return self._files[path]

    def error(self, path: str, rule_id: str, detail: str, key: str | None = None, line: int | None = None) -> ConfigError:
        node = self.rules_of(path).get(rule_id)
        if node is None:
            return ConfigError(path, line, detail, rule_id=rule_id)
        ln, col = node.where(key)
        return ConfigError(path, ln, detail, column=col, rule_id=rule_id)


def _mentions_disabled(path: Path) -> bool:
    try:
        return b"disabled" in path.read_bytes()
    except OSError:
        return False


def _layers(shipped: Sequence[Path] | None, user: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    shipped_files = rule_files(shipped if shipped is not None else [shipped_rules_dir()])
    user_files = rule_files([u for u in user if u.exists()])
    return shipped_files, user_files


def _rules_of_failed_files(result: LoadResult, errors: list[ConfigError]) -> list[CompiledRule]:
    """The loader skips a file that fails the schema whole: check its other rules one by one,
    adding their problems to ``errors``; returns the rules that pass."""
    found: list[CompiledRule] = []
    seen = {e.format() for e in errors}
    for name in sorted({p.path for p in result.problems if p.rule_id is not None}):
        rules, problems = rules_one_by_one(Path(name))
        found.extend(rules)
        for problem in problems:
            if problem.format() not in seen:
                seen.add(problem.format())
                errors.append(clip(problem))
    return found


def _disabled_problems(result: LoadResult, files: Sequence[Path], user_files: Sequence[Path],
                       where: _Positions) -> tuple[list[ConfigError], list[ConfigError]]:
    errors: list[ConfigError] = []
    warnings: list[ConfigError] = []
    for path in files:
        if not _mentions_disabled(path):
            continue
        for rid, node in where.rules_of(str(path)).items():
            extra = sorted(set(node) - {"id", "disabled"}) if node.get("disabled") is True else []
            if extra:
                errors.append(where.error(
                    str(path), rid,
                    f"a rule with 'disabled: true' holds only 'id' and 'disabled', not {', '.join(extra)}: "
                    "remove them to disable the rule, or remove 'disabled' to override it",
                    "disabled"))
    user_names = {str(p) for p in user_files}
    for origin in result.origins:
        if origin.disabled and origin.overrides is None and origin.path in user_names:
            warnings.append(where.error(
                origin.path, origin.rule_id,
                "warning: disables an id that no rule below this layer has (a typo?)", "disabled"))
        elif origin.overrides in user_names and origin.overrides != origin.path:
            warnings.append(where.error(
                origin.path, origin.rule_id,
                f"warning: replaces the rule with the same id in {origin.overrides}, an earlier user layer"))
    return errors, warnings


def _pattern_problems(rules: Sequence[CompiledRule], where: _Positions,
                      check_hyperscan: bool) -> tuple[list[ConfigError], list[ConfigError]]:
    errors: list[ConfigError] = []
    warnings: list[ConfigError] = []
    re2_ok = linear_twin("a") is not None  # (google-re2 installed: the prefilter without hyperscan)
    for rule in rules:
        quoted = _quote(rule.pattern)
        prefilter = re_prefilter_problem(rule.pattern)
        if prefilter is not None:
            errors.append(where.error(rule.path, rule.id, f"{prefilter}: {quoted}", "pattern", rule.line))
        risk = superlinear_risk(rule.pattern)
        if risk is not None:
            errors.append(where.error(rule.path, rule.id, f"pattern risks super-linear matching: {risk}: {quoted}",
                                      "pattern", rule.line))
        if required_literals(rule.pattern) is None:
            warnings.append(where.error(
                rule.path, rule.id,
                f"warning: no literal text of {MIN_LITERAL}+ characters is in every match of this pattern (only "
                f"character classes and short pieces), so it slows the scan of every log line for the whole rule "
                f"set; spell out a word the line always has (an alternation of words is fine): {quoted}",
                "pattern", rule.line))
        if re2_ok and linear_twin(f"(?m)(?:{prefilter_pattern(rule.pattern)})") is None:
            warnings.append(where.error(
                rule.path, rule.id,
                "warning: RE2 cannot run this pattern (a counted repeat above 1000, a look-around or a "
                "back-reference): an install without hyperscan scans for it with the slower re: "
                f"{quoted}", "pattern", rule.line))
        refused = hyperscan_problem(rule.pattern) if check_hyperscan else None
        if refused is not None:
            warnings.append(where.error(
                rule.path, rule.id,
                f"warning: hyperscan refuses this pattern ({refused}); the re prefilter is used for it instead "
                f"(correct, but slower: every line is searched for it): {quoted}",
                "pattern", rule.line))
    return errors, warnings


def validate_rules(
    shipped: Sequence[Path] | None = None,
    user: Sequence[Path] = (),
    *,
    hyperscan: bool = True,
) -> Validation:
    """Load the shipped layer and each user layer as the engine would, and check everything.

    ``shipped`` defaults to the packs shipped with rankdoctor; each entry of ``user`` is a
    layer over them. ``hyperscan=False`` skips the per-pattern hyperscan compile (about 10 ms
    a pattern), as the sidecar's reloader does.
    """
    result = load_rules(shipped, user)
    errors = [clip(p) for p in result.problems]
    shipped_files, user_files = _layers(shipped, user)
    rules = [*result.rules, *_rules_of_failed_files(result, errors)]
    where = _Positions()
    more_errors, warnings = _disabled_problems(result, [*shipped_files, *user_files], user_files, where)
    errors.extend(more_errors)
    check_hyperscan = hyperscan and hyperscan_available()
    more_errors, more_warnings = _pattern_problems(rules, where, check_hyperscan)
    errors.extend(more_errors)
    warnings.extend(more_warnings)
    if not errors and result.rules:
        try:
            RePrefilter([r.pattern for r in result.rules] + list(STRUCTURAL))
        except re.error as exc:  # each pattern compiles alone; together they do not
            errors.append(ConfigError(str(shipped_files[0] if shipped_files else "rules"), None,
                                      f"the patterns do not compile together for the re prefilter: {exc}"))
    if check_hyperscan and result.rules:
        for rule, ratio in slow_patterns(rules):
            warnings.append(where.error(
                rule.path, rule.id,
                f"warning: hyperscan scans log text {ratio:.0f} times slower for this pattern than for the median "
                f"rule's (timed over every rule's examples): nested or wide counted repeats, such as "
                f"'(?:[^ ]{{1,48}}[ |]{{1,64}}){{0,12}}', build a large automaton, and every replay pays for it; "
                f"narrow the repeats: {_quote(rule.pattern)}", "pattern", rule.line))
    if not errors and result.rules and check_hyperscan:
        shipped_ids = {r.id for r in result.rules if r.path in {str(f) for f in shipped_files}}
        errors.extend(_prefilter_problems(result.rules, where, shipped_ids if user_files else None))
    return Validation(result, tuple(sorted(errors, key=_where)), tuple(sorted(warnings, key=_where)),
                      tuple([*shipped_files, *user_files]), check_hyperscan)


def prefilter_misses(rules: Sequence[CompiledRule]) -> set[tuple[int, int]]:
    """(rule index, example index) of each example line the rule set, built as a replay builds it
    (hyperscan for what it accepts, with the structural patterns), does not find for its rule."""
    from detector.rules.engine import RuleSet

    ruleset = RuleSet(rules)
    missed = set()
    for index, rule in enumerate(rules):
        for n, (line, _fields) in enumerate(rule.examples):
            data = f"-\n{line}\n".encode("utf-8", "replace")
            # the line a replay would verify, and the rules its selector would try on it
            if not any(off == 2 and index in set(ruleset.selector.select(line, ids))
                       for off, ids in ruleset.candidate_lines(data, 0, len(data))):
                missed.add((index, n))
    return missed


def _prefilter_problems(rules: Sequence[CompiledRule], where: _Positions,
                      shipped_ids: set[str] | None) -> list[ConfigError]:
    """Example lines the prefilter, as a replay builds it, does not find for their rule although
    ``re`` matches them: the rule would never match in a replay. (Seen: a bounded repeat before an
    alternation whose branches shared a quoted word, which also hid other rules compiled with it
    into the same hyperscan database.) ``shipped_ids``: where user layers are loaded, the shipped
    rules' ids; a shipped rule missed only with the user layers is blamed on them."""
    missed = prefilter_misses(rules)
    if not missed:
        return []
    alone: set[tuple[int, int]] = set()
    if shipped_ids is not None and any(rules[i].id in shipped_ids for i, _n in missed):
        shipped = [r for r in rules if r.id in shipped_ids]
        position = {r.id: k for k, r in enumerate(shipped)}
        found_alone = prefilter_misses(shipped)
        alone = {(i, n) for i, n in missed if rules[i].id in position and (position[rules[i].id], n) not in found_alone}
    problems = []
    for index, n in sorted(missed):
        rule = rules[index]
        line = rule.examples[n][0]
        if (index, n) in alone:
            detail = (f"hyperscan does not find the example {_quote(line)} of this shipped rule once the user rules "
                      "are compiled with it (it does without them): a user rule's pattern hides it in every replay; "
                      "rewrite the user rules' patterns (factor a word the branches of an alternation share out of "
                      "it, or simplify a repeat)")
        else:
            detail = (f"hyperscan does not find the example {_quote(line)} although re matches it: the rule would "
                      "never match in a replay; rewrite the pattern (factor a word the branches of an alternation "
                      f"share out of it, or simplify a repeat): {_quote(rule.pattern)}")
        problems.append(where.error(rule.path, rule.id, detail, "examples", rule.line))
    return problems


def _where(problem: ConfigError) -> tuple[str, int, int]:
    return problem.path, problem.line or 0, problem.column or 0


# -- the rule table -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RuleRow:
    """One line of `rankdoctor rules list`."""

    id: str
    role: str
    cause: str
    source: str
    severity: str
    file: str
    line: int | None
    status: str  # active | override | disabled
    overrides: str | None  # the file of the rule this one replaces or disables


def rule_rows(result: LoadResult) -> list[RuleRow]:
    """The loaded rules in load order, then the rules that a user layer disabled."""
    origin = {o.rule_id: o for o in result.origins}
    rows: list[RuleRow] = []
    for r in result.rules:
        o = origin.get(r.id)
        over = o.overrides if o else None
        rows.append(RuleRow(r.id, r.role.value, r.cause.value if r.cause else "-", r.source, r.severity.value,
                            r.path, r.line or None, "override" if over else "active", over))
    where = _Positions()
    for o in result.origins:
        if o.disabled:
            node = where.rules_of(o.path).get(o.rule_id)
            rows.append(RuleRow(o.rule_id, "-", "-", "-", "-", o.path, node.line if node else None, "disabled", o.overrides))
    return rows


# -- JSON Schema --------------------------------------------------------------------------


def schema_dict() -> dict[str, Any]:
    """The JSON Schema of a rule file, generated from the pydantic models."""
    schema = RuleFile.model_json_schema()
    return {"$schema": SCHEMA_URL, **schema}


def schema_text() -> str:
    """``rules/schema.json`` as it should be on disk."""
    return json.dumps(schema_dict(), indent=2, sort_keys=False) + "\n"
