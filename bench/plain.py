"""A plain (non-editable) install of this checkout for the benchmarks that time new processes:
``pip install --no-deps .`` into a venv of its own under bench/data/plain, whose dependencies
are this checkout's .venv's (a .pth file), with byte code compiled at install time as a wheel
install does. A new `rankdoctor` process then starts as a user's would (an editable install,
with PYTHONDONTWRITEBYTECODE set as in this workspace, compiles every module at each start).

    python bench/plain.py        # (re)install; prints the interpreter to run
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAIN = ROOT / "bench" / "data" / "plain"
# what the `rankdoctor` console script runs
CLI = "import sys; from detector.cli.main import main; sys.exit(main())"


def plain_python(reinstall: bool = True) -> Path:
    """The interpreter of the plain install (made, or refreshed from the checkout)."""
    python = PLAIN / "bin" / "python"
    if not python.exists():
        if PLAIN.exists():
            shutil.rmtree(PLAIN)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(PLAIN)], check=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "checkout-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    if reinstall or not (site / "detector").is_dir():
        for old in [site / "detector", *site.glob("rankdoctor-*.dist-info")]:
            shutil.rmtree(old, ignore_errors=True)
        env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                        "--no-compile", "--target", str(site), "--upgrade", str(ROOT)],
                       check=True, cwd=ROOT, env=env, capture_output=True)
        # byte code, as a wheel install writes it (pip's own compile is off: its PYTHONDONTWRITEBYTECODE
        # handling varies by version)
        subprocess.run([str(python), "-m", "compileall", "-q", str(site / "detector")], check=True,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    return python


if __name__ == "__main__":
    print(plain_python())
