"""A console captured with colours (rich, pretty-errors, Python 3.13's own tracebacks): its codes
before an exception's class hid the line from the rules anchored at its first word, so the watch
read the rank's coloured traceback as "unknown" where replay of the same file, which takes the
codes off, read python_exception (a sidecar tester, twice). The watch takes them off too."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from detector.cli.main import main
from tests.support.sidecar import SidecarProc, brief

pytestmark = pytest.mark.slow

E = "\x1b"
LINES = [
    f"{E}[2m2026-12-07 13:18:55,202{E}[0m {E}[32mINFO    {E}[0m {E}[36m[rank1]{E}[0m step 1/100 loss 0.2348",
    f"{E}[31mTraceback (most recent call last):{E}[0m",
    f'  File {E}[35m"/work/train.py"{E}[0m, line {E}[35m77{E}[0m, in {E}[35mmain{E}[0m',
    "    raise ValueError(...)",
    f"{E}[1;35mValueError{E}[0m: {E}[35mbad sample in batch 30: expected label in [0, 1], got nan{E}[0m",
]


def test_a_coloured_traceback_is_read_live_as_replay_reads_it(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    sidecar = SidecarProc(tmp_path, ["--logs", str(logs), "--no-nvml", "--state", str(tmp_path / "state"),
                                     "--node", "node01"])
    try:
        time.sleep(2.0)
        with open(logs / "rank1.log", "w") as fh:
            for line in LINES:
                fh.write(line + "\n")
                fh.flush()
                time.sleep(0.2)
        found = sidecar.wait_incidents(1, timeout=60)
        said = "\n".join(brief(i) for i in found) + "\n" + sidecar.stderr()[-2000:]
        assert found[0]["cause"] == "python_exception" and found[0]["initiator"]["rank"] == 1, said  # type: ignore[index]
        assert sidecar.stop() == 0
    finally:
        sidecar.kill()
    assert main(["replay", str(logs), "--format", "json", "--output", str(tmp_path / "r.json")]) == 0
    assert '"cause": "python_exception"' in (tmp_path / "r.json").read_text()
