"""Packaging details pyproject.toml cannot say alone: the YAML rule packs live in the top-level
rules/ (the project's layout) and ship inside the wheel as ``detector/rulepacks/``, where the
rule loader finds them after a plain, non-editable install. Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["detector", "detector.*"]), "detector.rulepacks"],
    package_dir={"detector.rulepacks": "rules"},
    package_data={"detector.rulepacks": ["*.yaml", "schema.json"]},
)
