"""The wheel ships every package of the layers (ARCHITECTURE.md) and the data files the code reads at run time."""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parent.parent


def test_every_subpackage_and_data_file_ships() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    shipped = set(find_packages(ROOT, include=config["packages"]["find"]["include"]))
    on_disk = {str(p.parent.relative_to(ROOT)).replace("/", ".") for layer in ("sau", "extractors", "rules",
                                                                                 "llm_fallback", "verifier")
               for p in (ROOT / layer).rglob("__init__.py")}
    assert on_disk <= shipped, sorted(on_disk - shipped)
    data = config["package-data"]
    for package in ("extractors", "rules"):  # words.yaml, aliases.yaml, operations.yaml are read at run time
        assert "*.yaml" in data[package]
        assert list((ROOT / package).glob("*.yaml"))
