"""Rules from files to a compiled :class:`RuleSet`, all problems reported at once; the compiled
set is cached between runs (:mod:`detector.rules.cache`), keyed by the files' contents."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from detector.errors import ConfigError, RuleLoadError
from detector.rules.engine import RuleSet
from detector.rules.loader import load_rules, rule_files, shipped_rules_dir


def _layers(user_rules: Sequence[Path], shipped: Sequence[Path] | None) -> list[list[Path]] | None:
    """The rule files :func:`load_rules` reads, layer by layer; None where it will report a
    problem with a path (nothing is cached then)."""
    layers = [rule_files(shipped if shipped is not None else [shipped_rules_dir()])]
    for user_path in user_rules:
        if not user_path.exists():
            return None
        files = rule_files([user_path])
        if not files:  # an empty folder, or a device or FIFO left out
            return None
        layers.append(files)
    return layers


def load_ruleset(user_rules: Sequence[Path] = (), *, engine: str = "auto", shipped: Sequence[Path] | None = None,
                 cache: bool = True, small_input: bool = False) -> RuleSet:
    """Load and compile every rule up front; any problem stops here with every message. The
    compiled set comes from the rule cache when these files were loaded before (``cache``).

    ``small_input``: the caller will match at most a few hundred KiB (a paste, one short log).
    With the engine ``auto`` and no compiled set cached, the set is then built for Python's
    ``re``, which costs ~0.02 s to build against hyperscan's ~0.4 s database compile that so
    little text would never pay back; a cached hyperscan set is still used when there is one."""
    from detector.rules import cache as rule_cache

    key = None
    layers = _layers(user_rules, shipped) if cache else None
    if small_input and engine == "auto":
        if layers is not None:
            key = rule_cache.cache_key(layers, engine)
            cached = rule_cache.load(key) if key is not None else None
            if cached is not None:
                return cached
        engine = "re"
    if layers is not None:
        key = rule_cache.cache_key(layers, engine)
        if key is not None:
            cached = rule_cache.load(key)
            if cached is not None:
                return cached
    # an installed package's own packs are trusted (their checks ran in its tests); a source
    # checkout's rules/, which its developers edit, is checked like a user's rules
    trusted = shipped is None and shipped_rules_dir().name == "rulepacks"
    result = load_rules(shipped, user_rules, trust_shipped=trusted)
    if result.problems:
        raise RuleLoadError(result.problems)
    try:
        ruleset = RuleSet(result.rules, engine=engine)
    except (RecursionError, OverflowError):  # (each pattern compiled in the checks; their union nests deeper)
        raise ConfigError("rules", None, "a rule's pattern nests too deeply to build the rule set: "
                          "nest its groups less deeply") from None
    except Exception:
        if not trusted:
            raise
        # a trusted pack that does not compile after all (edited in place): the checked load
        # names the file, line and rule
        result = load_rules(shipped, user_rules)
        if result.problems:
            raise RuleLoadError(result.problems) from None
        raise
    # stored only when the files did not change while they were read
    if key is not None and layers is not None and rule_cache.cache_key(layers, engine) == key:
        rule_cache.store(key, ruleset)
    return ruleset
