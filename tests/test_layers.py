"""The import layers of the ``detector`` package (docs/architecture.md), checked by walking every
module's AST — imports inside functions included — and a planted violation that must be caught.

- types, errors: nothing of detector;
- support: types, errors;
- sources: types, errors, support (only they parse raw text);
- rules, stats: never pipeline, replay, sidecar, remediation, report, cli;
- attribution: pure — types, errors, support and itself;
- remediation: sees incidents only — types, errors, support, itself and report.jsonfmt (the
  incident's JSON form for the audit log and hooks);
- nothing outside cli imports cli.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "detector"

BASE = ("detector.types", "detector.errors", "detector.support")
ALLOWED: dict[str, tuple[str, ...]] = {
    "detector.types": (),
    "detector.errors": (),
    "detector.support": ("detector.types", "detector.errors", "detector.support"),
    "detector.sources": (*BASE, "detector.sources"),
    "detector.attribution": (*BASE, "detector.attribution"),
    "detector.remediation": (*BASE, "detector.remediation", "detector.report.jsonfmt"),
}
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "detector.rules": ("detector.pipeline", "detector.replay", "detector.sidecar", "detector.remediation",
                       "detector.report", "detector.cli"),
    "detector.stats": ("detector.pipeline", "detector.replay", "detector.sidecar", "detector.remediation",
                       "detector.report", "detector.cli"),
}


def module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, root: Path) -> Iterator[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path, root)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield mod, node.lineno
            for alias in node.names:  # "from detector.report import jsonfmt" names a module
                yield f"{mod}.{alias.name}", node.lineno


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations(root: Path = ROOT) -> list[str]:
    out: list[str] = []
    for path in sorted(root.rglob("*.py")):
        mod = module_name(path, root)
        for target, line in imports(path, root):
            if not _under(target, "detector") or target == "detector":
                continue
            where = f"{path.relative_to(root.parent)}:{line}: {mod} imports {target}"
            if _under(target, "detector.cli") and not _under(mod, "detector.cli"):
                out.append(f"{where} (nothing imports cli)")
            for layer, allowed in ALLOWED.items():
                if _under(mod, layer) and not any(_under(target, a) for a in allowed):
                    # "from detector.support import x" also yields detector.support.x: fine
                    out.append(f"{where} ({layer} may import only {', '.join(allowed) or 'nothing of detector'})")
            for layer, banned in FORBIDDEN.items():
                if _under(mod, layer) and any(_under(target, b) for b in banned):
                    out.append(f"{where} ({layer} never imports {', '.join(banned)})")
    return sorted(set(out))


def test_the_package_keeps_its_layers() -> None:
    assert violations() == []


def test_a_planted_violation_is_caught(tmp_path: Path) -> None:
    pkg = tmp_path / "detector"
    for sub in ("sources", "attribution", "rules", "remediation", "cli", "support"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "types.py").write_text("")
    (pkg / "sources" / "reader.py").write_text("from detector.rules.engine import RuleSet\n")
    (pkg / "attribution" / "attribute.py").write_text("def f():\n    from detector.sidecar import engine\n")
    (pkg / "rules" / "reload.py").write_text("from ..replay import thing\n")
    (pkg / "remediation" / "hook.py").write_text("import detector.pipeline.model\n")
    (pkg / "support" / "clock.py").write_text("from detector.cli.main import main\n")
    (pkg / "sources" / "fine.py").write_text("from detector.types import Event\nfrom . import fine\n")
    found = violations(pkg)
    text = "\n".join(found)
    assert "detector.sources.reader imports detector.rules.engine" in text
    assert "detector.attribution.attribute imports detector.sidecar" in text
    assert "detector.rules.reload imports detector.replay" in text
    assert "detector.remediation.hook imports detector.pipeline.model" in text
    assert "(nothing imports cli)" in text
    assert "sources.fine" not in text
