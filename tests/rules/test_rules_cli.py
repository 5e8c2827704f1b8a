"""`rankdoctor rules …` through the CLI: validate, test, list, coverage, schema; bad input gives
a `file:line` message and an exit status, never a traceback."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest

from detector.authoring.validate import schema_dict, schema_text
from detector.cli.main import main
from detector.rules.loader import shipped_rules_dir
from tests.support.paths import REPLAY_LOGS

EXCEPTION_RUN = REPLAY_LOGS / "torchrun_exception_4r"

GOOD = """\
rules:
  - id: site.gpu_lost
    description: the site's GPU monitor says a GPU is lost
    role: initiator
    cause: gpu_hardware
    pattern: 'gpumon: GPU (?P<pci>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}) lost'
    examples:
      - line: 'gpumon: GPU 0000:3b:00 lost (heartbeat)'
        fields: {pci: "0000:3b:00"}
    counterexamples:
      - 'gpumon: GPU 0000:3b:00 ok'
"""


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["rules", *argv])
    out, err = capsys.readouterr()
    assert "Traceback (most recent call last)" not in err
    return code, out, err


def test_validate_every_shipped_pack(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "validate")
    assert code == 0, out
    packs = sorted(shipped_rules_dir().glob("*.yaml"))
    assert len(packs) >= 2
    assert out == f"ok: {out.split()[1]} rules in {len(packs)} files; patterns checked for re and hyperscan\n" \
        or "hyperscan not installed" in out


def test_validate_a_rule_path_that_is_a_symbolic_link_loop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two links to each other given as the rule file: a problem on the path, exit 1 (pathlib
    raised RuntimeError from the shipped-layer comparison before)."""
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    code, out, _ = _run(capsys, "validate", str(tmp_path / "a.yaml"))
    assert code == 1
    assert out.startswith(f"{tmp_path / 'a.yaml'}: ")


def test_shipped_packs_carry_the_editor_hint_and_schema_is_fresh() -> None:
    for pack in shipped_rules_dir().glob("*.y*ml"):
        first = pack.read_text(encoding="utf-8").splitlines()[0]
        assert first == "# yaml-language-server: $schema=schema.json", pack
    on_disk = (shipped_rules_dir() / "schema.json").read_text(encoding="utf-8")
    assert on_disk == schema_text(), "rules/schema.json is stale: run `make schema`"


def test_schema_command_prints_the_generated_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "schema")
    assert code == 0
    schema = json.loads(out)
    assert schema == schema_dict()
    rule = schema["$defs"]["RuleSpec"]
    assert rule["additionalProperties"] is False
    assert {"id", "pattern", "role", "cause", "examples", "counterexamples", "disabled"} <= set(rule["properties"])


def test_validate_reports_each_problem_with_file_line_column_and_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "site.yaml"
    bad.write_text(
        GOOD
        + "  - id: site.flags\n    description: global flags mid-pattern\n    role: context\n"
        "    pattern: 'gpu (?i)reset'\n    examples: [{line: 'GPU reset done'}]\n"
        "  - id: site.redos\n    description: overlapping alternation\n    role: context\n"
        "    pattern: '(a|aa)+$'\n    examples: [{line: 'aaa'}]\n"
        "  - id: site.typo\n    description: unknown cause\n    role: initiator\n    cause: gpu_hardwares\n"
        "    pattern: 'x y z'\n    examples: [{line: 'x y z'}]\n"
    )
    code, out, _ = _run(capsys, "validate", "--no-shipped", str(bad))
    assert code == 1
    lines = out.splitlines()
    assert any(ln.startswith(f"{bad}:15:5: site.flags: pattern does not compile") and "'gpu (?i)reset'" in ln for ln in lines), out
    assert any(ln.startswith(f"{bad}:20:5: site.redos: pattern risks catastrophic backtracking") for ln in lines), out
    assert any(ln.startswith(f"{bad}:25:5: site.typo: ") and "'gpu_hardwares'" in ln for ln in lines), out
    assert lines[-1] == "3 problems (1 file checked)"


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("tabs.yaml", b"rules:\n\t- id: a.b\n", "tabs.yaml:2:1: tab used for indentation"),
        ("dup.yaml", b"rules:\n  - id: a.b\n    id: a.c\n", "dup.yaml:3:5: duplicate key 'id' (first at line 2)"),
        ("latin1.yaml", b"rules:\n  - id: a.b\n    description: caf\xe9\n", "latin1.yaml:3: not valid UTF-8 (byte 0xe9)"),
        ("empty.yaml", b"", "empty.yaml: file is empty"),
        ("list.yaml", b"- id: a.b\n", "list.yaml:1: expected a mapping with a 'rules:' list"),
        ("redos.yaml", b"rules:\n  - id: a.r\n    description: d\n    role: context\n    pattern: '(a+)+$'\n"
         b"    examples: [{line: aaa}]\n", "redos.yaml:5:5: a.r: pattern risks catastrophic backtracking"),
        ("key.yaml", b"rules:\n  - id: a.k\n    colour: red\n", "key.yaml:3:5: a.k: unknown key 'colour'"),
        ("big.yaml", b"rules:\n  - id: a.big\n    description: d\n    role: context\n    pattern: '"
         + b"x" * (1 << 20) + b"'\n    examples: [{line: x}]\n", "big.yaml:5:5: a.big: rules.pattern: String should have at most 4096"),
    ],
)
def test_bad_rule_files_give_a_message_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes, expected: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    code, out, _ = _run(capsys, "validate", "--no-shipped", str(path))
    assert code == 1
    assert f"{tmp_path}/{expected}" in out, out
    assert all(len(line) < 600 for line in out.splitlines())  # a 1 MB pattern is not quoted back whole


def test_hyperscan_refusal_is_a_warning_naming_the_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("hyperscan")
    path = tmp_path / "lb.yaml"
    path.write_text("rules:\n  - id: a.lb\n    description: d\n    role: context\n    pattern: '(?<!no )retry'\n"
                    "    examples: [{line: will retry}]\n    counterexamples: ['no retry']\n")
    code, out, _ = _run(capsys, "validate", "--no-shipped", str(path))
    assert code == 0
    assert f"{path}:5:5: a.lb: warning: hyperscan refuses this pattern" in out and "re prefilter is used" in out
    code, _, _ = _run(capsys, "validate", "--no-shipped", "--strict", str(path))
    assert code == 1


def test_a_pattern_without_a_literal_is_a_warning_and_no_shipped_rule_has_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pattern of classes only (a table row) makes hyperscan consider every line start: one such
    rule made the whole rule set's scan three times slower. validate says so; the shipped packs
    have none (--strict passes)."""
    path = tmp_path / "row.yaml"
    path.write_text("rules:\n  - id: a.row\n    description: d\n    role: context\n    pattern: '^[a-z]+ +[0-9]+/[0-9]+ +[A-Za-z]+$'\n"
                    "    examples: [{line: pod 1/1 Running}]\n")
    code, out, _ = _run(capsys, "validate", "--no-shipped", str(path))
    assert code == 0
    assert f"{path}:5:5: a.row: warning: no literal text of 3+ characters" in out, out
    assert _run(capsys, "validate", "--no-shipped", "--strict", str(path))[0] == 1
    path.write_text("rules:\n  - id: a.row\n    description: d\n    role: context\n"
                    "    pattern: '^[a-z]+ +[0-9]+/[0-9]+ +(?:Running|Error|Pending)$'\n"
                    "    examples: [{line: pod 1/1 Running}]\n")
    code, out, _ = _run(capsys, "validate", "--no-shipped", "--strict", str(path))
    assert code == 0 and "warning" not in out, out
    code, out, _ = _run(capsys, "validate", "--strict")
    assert code == 0 and "warning" not in out, out


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "bogus")[0] == 2
    assert _run(capsys, "test")[0] == 2
    assert _run(capsys, "validate", "--no-shipped")[0] == 2
    assert _run(capsys, "list", "--no-shipped")[0] == 2
    assert _run(capsys)[0] == 2
    assert _run(capsys, "--help")[0] == 0


def test_test_prints_matching_lines_with_rule_role_cause_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "site.yaml"
    rules.write_text(GOOD)
    log = tmp_path / "rank_2.log"
    log.write_text("2026-11-30 02:00:00,000 INFO step 1\n[rank2]: gpumon: GPU 0000:3b:00 lost (heartbeat)\nbye\n")
    code, out, _ = _run(capsys, "test", "--engine", "re", "--no-shipped", "--rules", str(rules), str(log))
    assert code == 0
    assert f"{log}:2 [rank 2] site.gpu_lost initiator gpu_hardware pci=0000:3b:00" in out
    assert out.splitlines()[-1].startswith("1 match on 1 line: site.gpu_lost x1")
    quiet = tmp_path / "quiet.log"
    quiet.write_text("all good\n")
    code, out, _ = _run(capsys, "test", "--engine", "re", "--no-shipped", "--rules", str(rules), str(quiet))
    assert code == 1 and "no rule matched" in out
    code, _, err = _run(capsys, "test", "--no-shipped", "--rules", str(rules), str(tmp_path / "nope.log"))
    assert code == 1 and "nope.log: no such file" in err


def test_test_reads_standard_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    rules = tmp_path / "site.yaml"
    rules.write_text(GOOD)
    text = b"[rank0]: hello\n[rank3]: gpumon: GPU 0000:5e:00 lost\n\xff\xfe not UTF-8\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
    code, out, _ = _run(capsys, "test", "--engine", "re", "--no-shipped", "--rules", str(rules), "-")
    assert code == 0
    assert out.splitlines()[0] == "<stdin>:2 [rank 3] site.gpu_lost initiator gpu_hardware pci=0000:5e:00"


def test_explain_names_matches_and_near_misses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "site.yaml"
    rules.write_text(GOOD)
    code, out, _ = _run(capsys, "test", "--engine", "re", "--no-shipped", "--rules", str(rules), "--explain",
                        "[rank5]: gpumon: GPU 0000:3b:00 lost (heartbeat)")
    assert code == 0
    assert "rank 5" in out and "site.gpu_lost initiator gpu_hardware pci=0000:3b:00" in out
    code, out, _ = _run(capsys, "test", "--engine", "re", "--no-shipped", "--rules", str(rules), "--explain",
                        "gpumon: GPU 3b:00.0 lost")
    assert code == 1
    assert "no rule matches this line" in out
    near = out[out.index("near misses:"):]
    assert "site.gpu_lost" in near and "then expects '(?P<pci>" in near and "'3b:00.0 lost'" in near


def test_list_shows_files_overrides_and_disabled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shipped_ids = [line.split(": ", 1)[1].strip() for line in
                   (shipped_rules_dir() / "xid.yaml").read_text().splitlines() if line.startswith("  - id: ")]
    first, second = shipped_ids[:2]
    user = tmp_path / "user"
    user.mkdir()
    (user / "site.yaml").write_text(
        GOOD + f"  - id: {first}\n    disabled: true\n"
        f"  - id: {second}\n    description: narrower\n    role: context\n    pattern: 'NVRM: Xid'\n"
        "    examples: [{line: 'NVRM: Xid (PCI:0000:3b:00): 79'}]\n"
    )
    code, out, _ = _run(capsys, "list", "--rules", str(user))
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()[1:-1]}
    assert f"{user / 'site.yaml'}:2" in rows["site.gpu_lost"]
    assert "disabled" in rows[first] and str(shipped_rules_dir() / "xid.yaml") in rows[first]
    assert f"overrides {shipped_rules_dir() / 'xid.yaml'}" in rows[second]
    assert "(1 overridden by user rules), 1 disabled" in out.splitlines()[-1]
    assert out.splitlines()[0].split() == ["ID", "ROLE", "CAUSE", "SOURCE", "SEVERITY", "FILE", "NOTE"]


def test_user_rule_directories_from_the_environment(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    bad, empty = tmp_path / "bad", tmp_path / "empty"
    bad.mkdir()
    empty.mkdir()
    (bad / "site.yaml").write_text("rules:\n  - id: a.k\n    colour: red\n")
    monkeypatch.setenv("RANKDOCTOR_RULES", os.pathsep.join(map(str, [bad, empty, tmp_path / "nope"])))
    code, out, _ = _run(capsys, "validate")
    assert code == 1
    assert f"{bad / 'site.yaml'}:3:5: a.k: unknown key 'colour'" in out
    assert f"{empty}: directory holds no .yaml rule files" in out
    assert f"{tmp_path / 'nope'}: no such file or directory" in out


PLANTED = "2026-11-30 02:57:3{n},50{n} ERROR [rank1] gpufw: HBM3 thermal trip on device 0000:3b:00.0 (temp=10{n}C, limit=95C), halting kernels"


def test_coverage_stub_edit_validate_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The loop of docs/rules.md: an unknown message found by coverage, its stub written, edited,
    validated, then matched by `rules test` and gone from coverage."""
    run = tmp_path / "run"
    shutil.copytree(EXCEPTION_RUN, run)
    log = run / "scenario" / "attempt_0" / "1" / "stderr.log"
    with log.open("a") as fh:
        for n in range(3):
            fh.write("[rank1]: " + PLANTED.format(n=n) + "\n")
    stubs = tmp_path / "stubs.yaml"
    code, out, _ = _run(capsys, "coverage", "--engine", "re", str(run), "--write-stubs", str(stubs))
    assert code == 0
    table = out.splitlines()
    header = next(i for i, line in enumerate(table) if line.split()[:2] == ["COUNT", "FIRST"])
    first_row = table[header + 1].split()
    assert first_row[:2] == ["3", "scenario/attempt_0/1/stderr.log:" + str(len(log.read_text().splitlines()) - 2)]
    assert "gpufw: HBM3 thermal trip on device <PCI> (temp=<VAL>, limit=<VAL>), halting kernels" in table[header + 1]
    assert f"to {stubs}" in table[-1]

    text = stubs.read_text()
    assert text.startswith("# yaml-language-server: $schema=")
    schema_ref = text.splitlines()[0].split("=", 1)[1]
    assert (stubs.parent / schema_ref).resolve() == (shipped_rules_dir() / "schema.json").resolve()
    assert _run(capsys, "validate", "--no-shipped", str(stubs))[0] == 0  # as written
    assert _run(capsys, "coverage", str(run), "--write-stubs", str(stubs))[0] == 1  # no silent overwrite

    # the author's edits: keep the first stub, name it, make it an initiator with a cause
    head, rest = text.split("\n  # ", 1)
    first_stub = "  # " + rest.split("\n\n  # ", 1)[0]
    old_id = first_stub.split("- id: ", 1)[1].split("\n", 1)[0]
    edited = head + "\n" + first_stub.replace(old_id, "gpufw.hbm_thermal_trip").replace(
        "role: context  # TODO: initiator (needs a cause) | collateral | context", "role: initiator"
    ).replace("cause: null  #", "cause: gpu_hardware  #") + "\n"
    stubs.write_text(edited)
    code, out, _ = _run(capsys, "validate", str(stubs))
    assert code == 0, out
    code, out, _ = _run(capsys, "test", "--engine", "re", "--no-shipped", "--rules", str(stubs), str(log))
    assert "gpufw.hbm_thermal_trip initiator gpu_hardware pci=0000:3b:00.0" in out
    code, out, _ = _run(capsys, "coverage", "--engine", "re", "--rules", str(stubs), str(run))
    assert "gpufw" not in out


def test_coverage_of_a_missing_run_or_into_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "coverage", "--engine", "re", str(tmp_path / "nope"))
    assert code == 1 and "no such file or directory" in err
    rules = tmp_path / "site.yaml"
    rules.write_text(GOOD)
    target = tmp_path / "dir"
    (target / "sub").mkdir(parents=True)
    code, _, err = _run(capsys, "coverage", "--engine", "re", "--no-shipped", "--rules", str(rules), str(EXCEPTION_RUN),
                        "--write-stubs", str(target), "--force")
    assert code == 1 and f"{target}: cannot write" in err


_SITE_RULE = """rules:
  - id: site.thermal_trip
    description: the site's GPU firmware halting kernels on a thermal trip
    source: rank_log
    role: initiator
    cause: gpu_hardware
    severity: error
    pattern: 'gpufw: HBM3 thermal trip on device (?P<pci>[0-9a-f:.]+)'
    examples:
      - line: 'gpufw: HBM3 thermal trip on device 0000:3b:00.0 (temp=101C)'
        fields: {pci: "0000:3b:00.0"}
"""


def test_replay_and_watch_read_the_rules_in_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The rules an operator tested with `rules` under $RANKDOCTOR_RULES are the rules `replay` and
    `watch` run (replay read only --rules: the planted line found nothing)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "thermal.yaml").write_text(_SITE_RULE)
    run = tmp_path / "run"
    run.mkdir()
    (run / "rank1.log").write_text(PLANTED.format(n=1) + "\n")

    def causes(*extra: str) -> list[str]:
        code = main(["replay", str(run), "--format", "json", "--no-progress", *extra])
        out, err = capsys.readouterr()
        assert code in (0, 1), err
        return [i["cause"] for i in json.loads(out)["incidents"]]

    assert causes() == []
    monkeypatch.setenv("RANKDOCTOR_RULES", str(site))
    assert causes() == ["gpu_hardware"]
    other = tmp_path / "other"
    other.mkdir()
    (other / "none.yaml").write_text("rules: []\n")
    assert causes("--rules", str(other)) == []  # (--rules given: the environment's are not added)

    from detector.cli.watch import build_parser, config_from_args

    args = build_parser().parse_args(["--logs", str(run)])
    assert config_from_args(args, {"RANKDOCTOR_RULES": str(site)}).rules == (site,)
    args = build_parser().parse_args(["--logs", str(run), "--rules", str(other)])
    assert config_from_args(args, {"RANKDOCTOR_RULES": str(site)}).rules == (other,)


SACCT = (r"^ {0,8}(?P<job>[0-9]{1,12}(?:_[0-9]{1,9})?(?:\+[0-9]{1,4})?)(?:\.(?P<step>[a-z]{1,11}\+?|[0-9]{1,6}\+?))?"
         r"[ |]{1,WIDE}(?:[^ |\n]{1,48}[ |]{1,WIDE}){0,12}?(?P<state>COMPLETED|FAILED|CANCELLED|TIMEOUT|OUT_OF_ME(?:MORY|\+)"
         r"|NODE_FAIL|PREEMPTED|RUNNING|PENDING|REQUEUED|BOOT_FAIL|DEADLINE|SUSPENDED)(?: by [0-9]{1,10})?\+?[ |]{1,24}"
         r"(?P<exit_code>[0-9]{1,3}:[0-9]{1,3})(?:[ |]|$)")  # the shipped Slurm accounting rule, gaps widened


def _sacct_pack(path: Path, wide: int) -> Path:
    path.write_text(
        "rules:\n  - id: site.sacct_row\n    description: a Slurm accounting row\n    role: context\n"
        f"    pattern: '{SACCT.replace('WIDE', str(wide))}'\n"
        "    examples:\n      - line: '4242 train gpu lab 16 FAILED 1:0'\n")
    return path


def test_validate_warns_of_a_pattern_that_makes_hyperscan_scan_slowly(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A shipped rule's gaps of up to 64 blanks inside a repeated group made hyperscan scan some
    400 times slower and a 256-rank replay 4 times slower, with no word from validate. Each pattern
    is now timed alone over the rules' examples: the wide one is named (a warning, so --strict
    fails), the narrow one passes."""
    from detector.authoring.validate import hyperscan_available

    if not hyperscan_available():
        pytest.skip("hyperscan is not installed")
    code, out, _ = _run(capsys, "validate", "--strict", str(_sacct_pack(tmp_path / "wide.yaml", 64)))
    assert code == 1, out
    slow = [line for line in out.splitlines() if "times slower" in line]
    assert len(slow) == 1 and "site.sacct_row" in slow[0] and "wide.yaml:5:" in slow[0], out
    code, out, _ = _run(capsys, "validate", "--strict", str(_sacct_pack(tmp_path / "narrow.yaml", 24)))
    assert code == 0, out
