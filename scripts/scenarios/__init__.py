"""The synthetic failed-run scenarios under ``replay_logs/``, as a package.

Each scenario is a folder with the log files of one run (rank logs, launcher console, kernel
log, metrics) and an ``expected.json`` whose format is in docs/architecture.md. The ground truth
in ``expected.json`` is what the scenario injected; the cause of each incident follows the cause
policy table of docs/architecture.md.

Deterministic: each scenario draws from its own ``random.Random`` seeded with a CRC of its
name, and every time is an offset from a fixed base time, so a re-run writes identical bytes.

Modules:

- ``formats``, ``model``: time stamp and device-id forms; nodes, rank processes, PyTorch/NCCL eras.
- ``writer``: ``LogWriter`` (every line of every file, written in time order), ``Scenario`` (a
  scenario under construction) and ``Stream`` (one rank's output into one file).
- ``training``, ``failures``, ``kernel``, ``agent``, ``expected``: building blocks (start-up and
  steps; failure blocks; kernel logs; torchrun's console; the ground truth).
- ``hardware``, ``network``, ``application``, ``crashes``, ``hangs``, ``scheduler``, ``healthy``,
  ``throttle`` (a thermally throttled GPU slowing a synchronous job, and its healthy twin; also
  drawn at random by bench/bench_stats.py), ``finish`` (ranks that finished vs a rank that hung
  in teardown or ran out of data): the scenarios, one family per module; ``catalog`` lists them
  all.
- ``cli``: the command line (``scripts/make_scenarios.py`` and ``python -m scenarios``).
"""
