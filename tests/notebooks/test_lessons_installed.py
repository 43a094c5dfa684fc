"""The lessons work outside the repository: ``pip install .`` installs every module a lesson imports, a lesson opened
from another directory runs against the installed package (the repository not on the path), and importing the lesson
toolkit changes nothing in marimo itself (the lessons write with ``app.lessons.md``)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted(p for p in (ROOT / "notebooks").glob("*.py") if not p.name.startswith("_"))
OURS = ("app", "dpcore")


def _lesson_imports() -> set[str]:
    """Every project module the lessons import (``app…``, ``dpcore…``), read from their source."""
    names: set[str] = set()
    for path in LESSONS:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in OURS:
                names.add(node.module)
                names |= {f"{node.module}.{a.name}" for a in node.names}  # a submodule, or a name in the module
            elif isinstance(node, ast.Import):
                names |= {a.name for a in node.names if a.name.split(".")[0] in OURS}
    return names


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment without the repository on the path (and nothing of this test run's own imports)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, **extra}


def _python(args: list[str], *, cwd: Path, path: Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    """``python <args>`` run in ``cwd`` with ``path`` (the repository or the installed copy) as its module path."""
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env=_clean_env(PYTHONPATH=str(path)),
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The project as ``pip install .`` installs it (no dependencies: those are this environment's), in a folder of
    its own."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(ROOT)],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return target


def test_importing_the_lesson_toolkit_changes_nothing_in_marimo():
    code = (
        "import marimo; md = marimo.md; from app import lessons; "
        "assert marimo.md is md, 'app.lessons replaced marimo.md'; "
        "print(lessons.md('e^ε').text); print('---'); print(marimo.md('e^ε').text)"
    )
    run = _python(["-c", code], cwd=ROOT, path=ROOT)
    assert run.returncode == 0, run.stderr
    ours, marimos = run.stdout.split("---")
    assert "marimo-tex" in ours and "e^{ε}" in ours, "the toolkit's md typesets the plainly written maths"
    assert "marimo-tex" not in marimos and "e^ε" in marimos, "marimo's own md is left as it is"


def test_no_lesson_uses_marimos_md_directly():
    """Without the toolkit's md a lesson's plainly written maths would show its carets and underscores."""
    for path in LESSONS:
        assert "mo.md(" not in path.read_text(), path.name


@pytest.mark.slow
def test_pip_install_installs_every_module_a_lesson_imports(installed, tmp_path):
    modules = sorted(_lesson_imports())
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    try:\n"
        "        module = importlib.import_module(name)\n"
        "    except ModuleNotFoundError:\n"
        "        parent, _, attr = name.rpartition('.')\n"
        "        module = importlib.import_module(parent)\n"
        "        assert hasattr(module, attr), name\n"
        "    where = getattr(module, '__file__', None) or ''\n"
        f"    assert where.startswith({str(installed)!r}), (name, where)\n"
        "print(len(sys.modules))\n"
    )
    run = _python(["-c", code], cwd=tmp_path, path=installed)
    assert run.returncode == 0, run.stderr
    assert len(modules) > 20  # the lessons import the toolkit, the compute layer, the figures and dpcore


@pytest.mark.slow
def test_a_lesson_opened_from_another_directory_runs(installed, tmp_path):
    """``marimo export html`` runs every cell of the lesson; here from a folder outside the repository, with only the
    installed package on the path."""
    out = tmp_path / "audit.html"
    run = _python(
        ["-m", "marimo", "export", "html", str(ROOT / "notebooks" / "audit.py"), "-o", str(out)],
        cwd=tmp_path,
        path=installed,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    html = out.read_text()
    assert "The privacy audit" in html and "marimo-tex" in html
    assert "ModuleNotFoundError" not in html and "Traceback" not in html
