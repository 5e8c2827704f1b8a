"""Safe YAML with positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.errors import ConfigError
from detector.support.yamlfile import YamlMap, load_yaml_file, loads_yaml


def test_positions() -> None:
    data = loads_yaml("a: 1\nb:\n  - x: 2\n    y: 3\n", "f.yaml")
    assert isinstance(data, YamlMap)
    assert data.pos["b"] == (2, 1)
    assert data["b"][0].pos["y"] == (4, 5)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\na: 2\n", "f.yaml:2:1: duplicate key 'a'"),
        ("a: &x [1]\nb: *x\n", "anchors"),
        ("a:\n\t- 1\n", "f.yaml:2:1: tab used for indentation"),
        ("a: [1\n", "invalid YAML"),
        ("a: !!python/object:os.system x\n", "invalid YAML"),
    ],
)
def test_refused(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        loads_yaml(text, "f.yaml")
    assert message in str(err.value)


def test_alias_bomb_refused() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b]\n"
    with pytest.raises(ConfigError):
        loads_yaml(bomb, "bomb.yaml")


def test_huge_and_binary_files(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * 200 + "\n")
    with pytest.raises(ConfigError, match="larger than"):
        load_yaml_file(big, max_bytes=100)
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"a: \xff\xfe\n")
    with pytest.raises(ConfigError, match="not valid UTF-8"):
        load_yaml_file(binary)
    with pytest.raises(ConfigError, match="cannot read"):
        load_yaml_file(tmp_path / "missing.yaml")
    assert load_yaml_file(_write(tmp_path / "empty.yaml", "")) is None


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
