"""Slurm node lists with several brackets in one name (``rack[1-2]-n[01-02]``) are each of their
combinations, the last bracket varying fastest, as Slurm writes them."""

from __future__ import annotations

from detector.support.hosts import expand_hostlist


def test_a_name_of_two_brackets_is_each_combination() -> None:
    assert expand_hostlist("rack[1-2]-n[01-02]") == ["rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"]
    assert expand_hostlist("gpu[1-2]-ib[0,3],login1") == ["gpu1-ib0", "gpu1-ib3", "gpu2-ib0", "gpu2-ib3", "login1"]


def test_the_combinations_are_bounded() -> None:
    assert len(expand_hostlist("x[1-1000]y[1-1000]", limit=50)) == 50
    assert expand_hostlist("x[1-1000]y[1-1000]", limit=3) == ["x1y1", "x1y2", "x1y3"]


def test_a_second_bracket_cut_ends_the_list() -> None:
    assert expand_hostlist("gpu[1-2]-ib[0-") == []
