"""A sidecar config with a notify hook that logs its calls, and a four-rank trainer writing
step lines until rank 2 raises (no tests here); used by
tests/reliability/test_reliability_restart.py and ``bench/bench_reliability.py restart``."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

HOOK = """\
import json, os, sys, time
log = os.environ["RD_HOOK_LOG"]
with open(log, "a") as fh:
    fh.write(json.dumps({"event": "start", "argv": sys.argv[1:], "pid": os.getpid()}) + "\\n")
time.sleep(float(os.environ.get("RD_HOOK_SLEEP", "0")))
with open(log, "a") as fh:
    fh.write(json.dumps({"event": "end", "argv": sys.argv[1:]}) + "\\n")
"""
STEP = "2026-11-29T12:00:{s:02d}Z [rank{r}]: step {i} | loss 1.0\n"
ERROR = ("[rank2]: Traceback (most recent call last):\n"
         '[rank2]:   File "train.py", line 9, in <module>\n'
         "[rank2]: RuntimeError: injected fault: bad batch at step 40\n")


def setup(tmp: Path, hook_sleep: float) -> tuple[Path, list[str], Path, dict[str, str]]:
    logs = tmp / "logs"
    logs.mkdir()
    hook = tmp / "hook.py"
    hook.write_text(HOOK)
    config = tmp / "watch.yaml"
    config.write_text(json.dumps({
        "logs": [str(logs)], "node": "node01", "nvml": False, "processes": {"enabled": False},
        "detection": {"settle_s": 0.3, "collateral_wait_s": 1.0}, "act": True,
        "remediation": {"state_dir": str(tmp / "state" / "remediation"), "hook_retries": 0,
                        "verify": {"enabled": False},
                        "hooks": [{"type": "command", "actions": ["notify"], "timeout_s": 30,
                                   "argv": [sys.executable, str(hook), "{incident_id}", "{action}"]}]},
    }))
    hook_log = tmp / "hook.jsonl"
    env = {"RD_HOOK_LOG": str(hook_log), "RD_HOOK_SLEEP": str(hook_sleep)}
    args = ["--config", str(config), "--state", str(tmp / "state")]
    return logs, args, hook_log, env


class Trainer(threading.Thread):
    """Four ranks printing step lines; rank 2 raises at step 40."""

    def __init__(self, logs: Path, steps: int = 80, fail_at: int = 40, pace: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.logs, self.steps, self.fail_at, self.pace = logs, steps, fail_at, pace
        self.failed = threading.Event()

    def run(self) -> None:
        files = [open(self.logs / f"rank_{r}.log", "a") for r in range(4)]  # noqa: SIM115
        try:
            for i in range(self.steps):
                for r, fh in enumerate(files):
                    if r == 2 and i >= self.fail_at:
                        continue
                    fh.write(STEP.format(s=i % 60, r=r, i=i))
                    fh.flush()
                if i == self.fail_at:
                    files[2].write(ERROR)
                    files[2].flush()
                    self.failed.set()
                time.sleep(self.pace)
        finally:
            for fh in files:
                fh.close()


def hook_events(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []
