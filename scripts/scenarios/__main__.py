"""``python -m scenarios`` (from scripts/): the same command line as scripts/make_scenarios.py."""

from .cli import main

raise SystemExit(main())
