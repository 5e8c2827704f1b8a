#!/usr/bin/env python3
"""Write the synthetic failed-run scenarios under ``replay_logs/``.

Each scenario is a folder with the log files of one run (rank logs, launcher console, kernel
log, metrics) and an ``expected.json`` whose format is in docs/architecture.md. The ground truth
in ``expected.json`` is what this script injected; the cause of each incident follows the cause
policy table of docs/architecture.md.

Deterministic: each scenario draws from its own ``random.Random`` seeded with a CRC of its
name, and every time is an offset from a fixed base time, so a re-run writes identical bytes.
The script deletes and rewrites only the folders named in ``scenarios.catalog.SCENARIOS``; the
``torchrun_*`` folders belong to scripts/gen_torchrun_scenarios.py.

The code lives in the ``scenarios`` package next to this file (scripts/scenarios/); this is its
entry point, as is ``python -m scenarios`` run from scripts/.

Usage::

    python scripts/make_scenarios.py [--out replay_logs] [--only NAME ...] [--quiet]
"""

from __future__ import annotations

from scenarios.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
