"""How a real log survives the ways people paste it (issue 11): each development case of one
file, rewritten as a user's paste would hold it, replayed against the case as gathered.

    python bench/bench_pastes.py [--n 400] [--seed 1] [--forms issue,quote,indent,...]

Forms: ``issue`` (the log in an issue template: a question, the log in a fenced block, the
"Versions" heading and PyTorch's collect_env output after it), ``quote`` (a reply's "> " before
every line), ``indent`` (a Markdown code block's four spaces), ``tab``, ``crlf`` (Windows line
ends), ``ansi`` (every line coloured as a terminal shows it), ``k8s`` (kubectl logs
--timestamps' RFC 3339 stamp before every line), ``split`` (the log in two files, as pasted in two
comments). For each form: the cases, how many verdicts (cause, initiator rank, node) differ from
the case as gathered, and the cause right against the truth before and after. Only the
development split is used; no set-aside case is read.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.diagnosis import CORPUS, load_truths, rankdoctor_verdict  # noqa: E402

ENV = """Collecting environment information...
PyTorch version: 2.1.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.3 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-5.15.0-88-generic-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: 12.1.105
GPU models and configuration:
""" + "".join(f"GPU {i}: NVIDIA A100-SXM4-80GB\n" for i in range(8)) + """
Nvidia driver version: 535.104.05
cuDNN version: Could not collect
Is XNNPACK available: True

CPU:
Architecture:                       x86_64
CPU(s):                             256
Model name:                         AMD EPYC 7742 64-Core Processor
NUMA node(s):                       8
Vulnerability Meltdown:             Not affected
Vulnerability Spec store bypass:    Mitigation; Speculative Store Bypass disabled via prctl and seccomp
Vulnerability Spectre v1:           Mitigation; usercopy/swapgs barriers and __user pointer sanitization
Vulnerability Spectre v2:           Mitigation; Retpolines, IBPB conditional, STIBP always-on, RSB filling

Versions of relevant libraries:
[pip3] numpy==1.26.2
[pip3] nvidia-nccl-cu12==2.18.1
[pip3] torch==2.1.0
[conda] Could not collect
"""
ISSUE_HEAD = ("### 🐛 Describe the bug\n\nI'm training with DDP on 2 nodes x 8 GPUs (torchrun, NCCL backend). After a while "
              "the job crashes with the error below. I tried setting NCCL_DEBUG=INFO and it still fails.\n\n```\n")


def _lines(f: Callable[[int, str], str]) -> Callable[[str], str]:
    return lambda text: "\n".join(f(i, line) if line else line for i, line in enumerate(text.split("\n")))


FORMS: dict[str, Callable[[str], str]] = {
    "issue": lambda text: ISSUE_HEAD + text.rstrip("\n") + "\n```\n\n### Versions\n\n" + ENV,
    "quote": lambda text: "\n".join("> " + line for line in text.split("\n")),
    "indent": _lines(lambda _i, line: "    " + line),
    "tab": _lines(lambda _i, line: "\t" + line),
    "crlf": lambda text: text.replace("\n", "\r\n"),
    "ansi": _lines(lambda _i, line: "\x1b[32m" + line + "\x1b[0m"),
    "k8s": _lines(lambda i, line: f"2024-05-01T12:{i // 60 % 60:02d}:{i % 60:02d}.{i:09d}Z " + line),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=400, help="development cases drawn (those of one file are used)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--forms", default=",".join([*FORMS, "split"]))
    args = ap.parse_args(argv)
    from detector.rules.compile import load_ruleset

    rules = load_ruleset()
    truths = load_truths("dev")
    random.Random(args.seed).shuffle(truths)
    cases = []
    for t in truths[: args.n]:
        files = [p for p in (CORPUS / t.case).iterdir() if p.is_file() and p.name != "truth.json"]
        if len(files) == 1 and files[0].stat().st_size <= 200_000:
            cases.append((t, files[0]))
    gathered = {t.case: rankdoctor_verdict(CORPUS / t.case, rules) for t, _f in cases}

    def right(t: object, v: object) -> bool:
        return (v.cause is None) if t.healthy else v.cause == t.cause  # type: ignore[attr-defined]

    print("| form | cases | verdicts changed | cause right, as gathered | cause right, as pasted |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for form in args.forms.split(","):
            changed = before = after = 0
            for t, path in cases:
                case = Path(tmp) / form / t.case
                case.mkdir(parents=True)
                text = path.read_text(encoding="utf-8", errors="replace")
                if form == "split":
                    lines = text.split("\n")
                    half = len(lines) // 2
                    (case / "log-part1.txt").write_text("\n".join(lines[:half]) + "\n")
                    (case / "log-part2.txt").write_text("\n".join(lines[half:]))
                else:
                    (case / path.name).write_text(FORMS[form](text), newline="")
                a, b = gathered[t.case], rankdoctor_verdict(case, rules)
                changed += (a.cause, a.rank, a.node) != (b.cause, b.rank, b.node)
                before += right(t, a)
                after += right(t, b)
            shutil.rmtree(Path(tmp) / form)
            print(f"| {form} | {len(cases)} | {changed} | {before} | {after} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
