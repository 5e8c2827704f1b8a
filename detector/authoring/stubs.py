"""Rule stubs from coverage clusters: a ready-to-edit YAML rule for each cluster of unmatched
lines, whose pattern comes from the cluster's Drain3 template and whose examples are the
cluster's own lines. A stub validates as written (role ``context``); the author then names it,
sets its role and cause, and tightens its pattern."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from detector.authoring.coverage import MASKS, Cluster, Coverage, kinds_source
from detector.authoring.validate import re_prefilter_problem
from detector.rules.linearity import superlinear_risk
from detector.rules.loader import compile_pattern, pattern_problems
from detector.types import Cause

MAX_TOKENS = 24  # a stub's pattern covers at most this many tokens of the template
_MARK = re.compile(r"<(\*|" + "|".join(m.name for m in MASKS) + r")>")
_STUB = {m.name: m.stub for m in MASKS}
_NAMED = {"PCI": "pci"}
_WARNING = re.compile(r"(?i)\bwarn(?:ing)?\b|^\[?W\d{4} \d\d:")  # masks that become a named group (a field attribution uses)


@dataclass(frozen=True, slots=True)
class Stub:
    id: str
    description: str
    source: str
    severity: str
    pattern: str
    examples: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    cluster: Cluster


_SPECIAL = re.compile(r"([.^$*+?{}\[\]\\|()])")


def _escape(text: str) -> str:
    """Escape what is special in a pattern, and only that (re.escape also escapes '-', '#' …,
    which makes stubs harder to read)."""
    return _SPECIAL.sub(r"\\\1", text)


def _token_regex(token: str, named: set[str]) -> tuple[str, bool]:
    """A template token as a regex, and whether it holds literal letters or digits."""
    out: list[str] = []
    literal = False
    pos = 0
    for m in _MARK.finditer(token):
        if m.start() > pos:
            out.append(_escape(token[pos : m.start()]))
            literal = literal or any(ch.isalnum() for ch in token[pos : m.start()])
        name = m.group(1)
        if name == "*":
            out.append(r"\S+")
        elif name in _NAMED and _NAMED[name] not in named:
            named.add(_NAMED[name])
            out.append(f"(?P<{_NAMED[name]}>{_STUB[name]})")
        else:
            out.append(_STUB[name])
        pos = m.end()
    if pos < len(token):
        out.append(_escape(token[pos:]))
        literal = literal or any(ch.isalnum() for ch in token[pos:])
    return "".join(out), literal


def template_pattern(template: str, max_tokens: int = MAX_TOKENS) -> str:
    """A pattern for a Drain3 template: literal tokens escaped, masks and wildcards as regexes,
    tokens joined by ``\\s+``; leading and trailing tokens without literal letters or digits are left out
    (the engine searches, so they add nothing) and so is everything past ``max_tokens``."""
    named: set[str] = set()
    parts = [_token_regex(t, named) for t in template.split()]
    while parts and not parts[0][1]:
        parts.pop(0)
    parts = parts[:max_tokens]
    while parts and not parts[-1][1]:
        parts.pop()
    return r"\s+".join(p for p, _ in parts)


def _acceptable(pattern: str) -> bool:
    return bool(pattern) and not pattern_problems(pattern) and not superlinear_risk(pattern) \
        and re_prefilter_problem(pattern) is None


def _examples(pattern: str, lines: Sequence[str]) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    regex = compile_pattern(pattern)
    out = []
    for line in lines:
        m = regex.search(line)
        if m is not None:
            out.append((line, tuple((k, v) for k, v in m.groupdict().items() if v is not None)))
    return out


def _literal_run(template: str) -> str:
    """The longest run of tokens without masks, as a pattern."""
    best: list[str] = []
    run: list[str] = []
    for token in [*template.split(), "<*>"]:
        if _MARK.search(token):
            if len(" ".join(run)) > len(" ".join(best)):
                best = run
            run = []
        else:
            run.append(token)
    return r"\s+".join(_escape(t) for t in best)


def stub_pattern(cluster: Cluster) -> tuple[str, list[tuple[str, tuple[tuple[str, str], ...]]]]:
    """The stub's pattern and the examples (with fields) it matches; never empty."""
    for pattern in (template_pattern(cluster.template), _literal_run(cluster.template)):
        if _acceptable(pattern):
            examples = _examples(pattern, cluster.examples)
            if examples:
                return pattern, examples
    first = cluster.examples[0]
    pattern = _escape(first[:80].strip() or first[:80])
    return pattern, _examples(pattern, [first])


def _slug(template: str) -> str:
    words = [w.lower() for t in template.split() if not _MARK.search(t) for w in re.findall(r"[A-Za-z]{3,}", t)]
    return "_".join(words[:4])[:40].strip("_") or "message"


def make_stubs(clusters: Iterable[Cluster], *, taken: Iterable[str] = (), family: str = "local") -> list[Stub]:
    """One stub per cluster; ids are ``family.<words of the template>``, unique and distinct
    from ``taken`` (the ids already loaded)."""
    used = set(taken)
    out: list[Stub] = []
    for cluster in clusters:
        if not cluster.mined:
            continue  # (lines counted past what the miner clusters: no template to write a rule from)
        base = f"{family}.{_slug(cluster.template)}"
        rid = base
        k = 2
        while rid in used:
            rid = f"{base}_{k}"
            k += 1
        used.add(rid)
        pattern, examples = stub_pattern(cluster)
        tokens = cluster.template.split()
        while tokens and not _MARK.sub("", tokens[0]).strip("[]():-|"):
            tokens.pop(0)  # leading timestamps, pids: not what the message says
        shown = " ".join(tokens) or cluster.template
        shown = shown if len(shown) <= 80 else shown[:80] + "…"
        description = f"TODO: say what this means: {shown}"
        warning = any(_WARNING.search(x) for x in cluster.examples)
        severity = "warning" if warning else "error"
        out.append(Stub(rid, description, kinds_source(cluster.kinds), severity, pattern,
                        tuple(examples[:3]), cluster))
    return out


# printable in YAML and not a line break (U+0085, U+2028 and U+2029 are line breaks to YAML 1.1)
_YAML_OK = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def yaml_str(text: str) -> str:
    """A YAML scalar for any string: single-quoted when it can be, else double-quoted with
    escapes for what YAML does not allow raw."""
    if all(_YAML_OK.match(ch) for ch in text):
        return "'" + text.replace("'", "''") + "'"
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif _YAML_OK.match(ch):
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def _comment(text: str) -> str:
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def stubs_yaml(coverage: Coverage, stubs: Sequence[Stub], *, schema_ref: str = "schema.json") -> str:
    """The stub file: the editor hint, how to finish each rule, then the rules."""
    causes = " | ".join(c.value for c in Cause)
    lines = [
        f"# yaml-language-server: $schema={schema_ref}",
        f"# Rule stubs written by `rankdoctor rules coverage` for {_comment(coverage.source)}: one rule for",
        "# each cluster of error-looking lines that no rule matched, most frequent first.",
        "# For each rule you keep: rename its id (family.name), write its description, set its role",
        "# and cause, make the pattern as specific as the message (named groups become fields), then",
        "#   rankdoctor rules validate THIS_FILE",
        "#   rankdoctor rules test --rules THIS_FILE LOGFILE",
        "# Delete the rules you do not want.",
        "rules:",
    ]
    for stub in stubs:
        c = stub.cluster
        lines += [
            "",
            f"  # {c.count} line{'s' if c.count != 1 else ''}, first at {_comment(c.first_file)}:{c.first_line}",
            f"  # template: {_comment(c.template[:300])}",
            f"  - id: {stub.id}",
            f"    description: {yaml_str(stub.description)}",
            f"    source: {stub.source}",
            "    role: context  # TODO: initiator (needs a cause) | collateral | context",
            f"    cause: null  # TODO: {causes}",
            f"    severity: {stub.severity}",
            f"    pattern: {yaml_str(stub.pattern)}",
            "    examples:",
        ]
        for line, fields in stub.examples:
            lines.append(f"      - line: {yaml_str(line)}")
            if fields:
                inner = ", ".join(f"{k}: {yaml_str(v)}" for k, v in fields)
                lines.append(f"        fields: {{{inner}}}")
    if not stubs:
        lines[-1] = "rules: []"
    return "\n".join(lines) + "\n"
