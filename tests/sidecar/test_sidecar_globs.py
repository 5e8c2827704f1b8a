"""A --logs glob is read by the same walk as a folder: links to folders are not followed (a
"latest -> ." link under a "**" pattern would have each file read once per level, a loop of links
would never end), and the glob's own rules for "*", "**" and hidden names hold."""

from __future__ import annotations

from pathlib import Path

from detector.sidecar.sources.logs import files_named


def _tree(root: Path) -> Path:
    logs = root / "logs"
    (logs / "job" / "node1").mkdir(parents=True)
    (logs / "job" / "node1" / "rank1.log").write_text("x\n")
    (logs / "job" / "a.log").write_text("y\n")
    (logs / "job" / ".hidden.log").write_text("z\n")
    (logs / "job" / "latest").symlink_to(".")  # a link to its own folder
    (logs / "job" / "node1" / "up").symlink_to("..")  # and a loop through the parent
    return logs


def test_a_recursive_glob_does_not_follow_links_to_folders(tmp_path: Path) -> None:
    logs = _tree(tmp_path)
    found = files_named(f"{logs}/**/*.log")
    assert found == [logs / "job" / "a.log", logs / "job" / "node1" / "rank1.log"]


def test_a_globs_stars_match_within_a_name_and_hidden_names_only_when_asked(tmp_path: Path) -> None:
    logs = _tree(tmp_path)
    assert files_named(f"{logs}/job/*.log") == [logs / "job" / "a.log"]
    assert files_named(f"{logs}/job/node*/rank?.log") == [logs / "job" / "node1" / "rank1.log"]
    assert files_named(f"{logs}/**/.hidden.log") == [logs / "job" / ".hidden.log"]
    assert files_named(f"{logs}/nowhere/*.log") == []
