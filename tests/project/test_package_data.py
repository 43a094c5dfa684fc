"""The example table the "Run it" scripts use ships inside the dpcore package: named in pyproject's package data,
and present in the wheel that `pip install .` builds."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from dpcore import release

ROOT = Path(__file__).resolve().parents[2]


def test_pyproject_packages_the_example_table():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    matched = [p for pattern in data["dpcore"] for p in (ROOT / "dpcore").glob(pattern)]
    assert release.example_csv().resolve() in [p.resolve() for p in matched]


@pytest.mark.slow
def test_the_wheel_holds_the_example_table(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    wheel = next(tmp_path.glob("dp_explorer-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "dpcore/examples/households.csv" in names and "dpcore/release.py" in names
