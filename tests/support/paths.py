"""Where the repository and its recorded runs are."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPLAY_LOGS = ROOT / "replay_logs"
