"""What the README and docs/ show a reader is true: every Python example runs (and prints the numbers its comments
state, to the digits shown), every function, option and test they name exists."""

from __future__ import annotations

import ast
import importlib
import inspect
import math
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_BLOCK = re.compile(r"```python\n(.*?)```", re.S)
_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\b")
_ALT = re.compile(r'(\w+)="(\w+)"\s*→\s*(-?\d+(?:\.\d+)?)')


def _blocks() -> list[tuple[str, int, str]]:
    out = []
    for path in DOCS:
        text = path.read_text()
        for m in _BLOCK.finditer(text):
            line = text[: m.start()].count("\n") + 2
            out.append((path.name, line, m.group(1)))
    return out


def _shown(value: float, text: str) -> bool:
    """Does ``value`` print as ``text`` (the number in a comment, to its last digit)?"""
    digits = len(text.split(".")[1].split("e")[0]) if "." in text else 0
    exp = int(text.split("e")[1]) if "e" in text else 0
    half = 0.5 * 10.0 ** (exp - digits)
    return abs(float(value) - float(text)) <= half * (1 + 1e-9)


def test_the_docs_hold_python_examples() -> None:
    names = {name for name, _, _ in _blocks()}
    assert "README.md" in names and "architecture.md" in names


@pytest.mark.parametrize("where, line, code", _blocks(), ids=lambda v: str(v) if not isinstance(v, str) else v[:30])
def test_every_python_example_runs_and_shows_its_numbers(where: str, line: int, code: str) -> None:
    shim = re.match(r"# (pages/\w+\.py) — the whole file[^\n]*\n", code)
    if shim:  # a page shim: the doc shows the real file, and that page runs in the app (navigation included)
        from streamlit.testing.v1 import AppTest

        page = ROOT / shim.group(1)
        assert (
            code[shim.end() :].strip() == page.read_text().strip().split("\n\n", 1)[-1].strip()
            or code[shim.end() :].strip() in page.read_text()
        ), f"{where}:{line}: {page.name} is not what the doc shows"
        at = AppTest.from_file(str(ROOT / "app" / "main.py"), default_timeout=120)
        at.switch_page(f"../{shim.group(1)}")
        at.run()
        assert not at.exception, f"{where}:{line}: {at.exception}"
        assert not at.error, f"{where}:{line}: {[e.value for e in at.error]}"
        return
    namespace: dict = {}
    lines = code.splitlines()
    checked = 0
    for i, src in enumerate(lines):
        stmt, _, comment = src.partition("  # ")
        stmt = stmt.rstrip()
        if not stmt or stmt.startswith("#"):
            continue
        tree = ast.parse(stmt)
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
            value = eval(compile(ast.Expression(tree.body[0].value), f"{where}:{line + i}", "eval"), namespace)
            m = _NUMBER.match(comment)
            if m:
                assert np.ndim(value) == 0, f"{where}:{line + i}: a number is stated for an array"
                assert _shown(value, m.group(1)), (
                    f"{where}:{line + i}: {stmt} gives {value!r}, the comment says {m.group(1)}"
                )
                checked += 1
            for kw, opt, num in _ALT.findall(comment):  # `method="classic" → 4.84481`: the same call with that option
                call = tree.body[0].value
                assert isinstance(call, ast.Call)
                call.keywords.append(ast.keyword(arg=kw, value=ast.Constant(opt)))
                alt = eval(compile(ast.fix_missing_locations(ast.Expression(call)), where, "eval"), namespace)
                assert _shown(alt, num), f"{where}:{line + i}: with {kw}={opt!r} {stmt} gives {alt!r}, not {num}"
                checked += 1
        else:
            exec(compile(tree, f"{where}:{line + i}", "exec"), namespace)
    if where == "README.md":
        assert checked >= 5  # the README's numbers are all checked


# ------------------------------------------------------------------------------------------------ names in the docs

_SPAN = re.compile(r"`([^`\n]+)`")
_CALL = re.compile(r"^([A-Za-z_][\w.]*)\((.*)\)$")


def _resolve(dotted: str, current: str | None = None):
    """The dpcore object a doc names as ``module.attr`` (relative to dpcore) or a bare name in ``current``."""
    parts = dotted.removeprefix("dpcore.").split(".")
    candidates = [parts] if current is None or len(parts) > 1 else [[*current.split("."), *parts], parts]
    for cand in candidates:
        for cut in range(len(cand), 0, -1):
            try:
                obj = importlib.import_module("dpcore." + ".".join(cand[:cut]))
            except ImportError:
                continue
            try:
                for attr in cand[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                break
            return obj
    for pkg in ("", *_SUBPACKAGES):  # a bare name: exported at the top (dpcore.gaussian_sigma) or by one subpackage
        try:
            obj = importlib.import_module("dpcore" + (f".{pkg}" if pkg else ""))
            for attr in parts:
                obj = getattr(obj, attr)
            return obj
        except (AttributeError, ImportError):
            continue
    return None


_SUBPACKAGES = (
    "accounting",
    "brdp",
    "noise_reduction",
    "filters",
    "svt",
    "ldp",
    "r2dp",
    "mechanisms",
    "ledger",
    "negotiate",
    "audit",
    "data",
)


def _dpcore_cells() -> list[tuple[str, str]]:
    """(where, cell) of the dpcore column of papers.md's coverage tables."""
    out = []
    for row in (ROOT / "docs" / "papers.md").read_text().splitlines():
        if row.startswith("|") and not row.startswith("|---") and not row.startswith("| paper item"):
            cells = [c.strip() for c in row.strip("|").split("|")]
            if len(cells) >= 2:
                out.append((cells[0][:40], cells[1]))
    return out


def test_every_dpcore_name_in_the_coverage_tables_exists() -> None:
    missing = []
    for where, cell in _dpcore_cells():
        current = None
        for span in _SPAN.findall(cell):
            name = _CALL.match(span).group(1) if _CALL.match(span) else span
            if not re.fullmatch(r"[A-Za-z_][\w.]*", name) or name.startswith(("tests", "app.")):
                continue
            obj = _resolve(name, current)
            if obj is None:
                missing.append(f"{where}: {span}")
                continue
            if inspect.ismodule(obj):  # `ldp.rr_survey` (`estimate`, …): the names after it are the module's
                current = name.removeprefix("dpcore.")
            elif "." in name:
                current = ".".join(name.removeprefix("dpcore.").split(".")[:-1]) or current
    assert not missing, "named in docs/papers.md but not in dpcore: " + "; ".join(missing)


def test_every_option_named_in_the_docs_exists() -> None:
    """``f(kw="value")`` in a doc: f takes kw, and "value" is an option it knows (a string its code compares)."""
    bad = []
    for path in DOCS:
        for span in _SPAN.findall(path.read_text()):
            m = _CALL.match(span)
            if not m or "=" not in m.group(2):
                continue
            obj = _resolve(m.group(1))
            if obj is None or not callable(obj):
                continue
            try:
                call = ast.parse(span, mode="eval").body
            except SyntaxError:
                continue
            src = inspect.getsource(inspect.getmodule(obj))
            params = inspect.signature(obj).parameters
            for kw in getattr(call, "keywords", []):
                if kw.arg not in params and not any(p.kind == p.VAR_KEYWORD for p in params.values()):
                    bad.append(f"{path.name}: {span} ({kw.arg} is not a parameter)")
                elif isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    if f'"{kw.value.value}"' not in src and f"'{kw.value.value}'" not in src:
                        bad.append(f"{path.name}: {span} ({kw.value.value!r} is not an option)")
    assert not bad, "; ".join(bad)


def test_every_test_named_in_the_errata_exists() -> None:
    text = (ROOT / "docs" / "errata.md").read_text()
    refs = set(re.findall(r"(tests/[\w/]+\.py)::(\w+)", text))
    assert len(refs) > 40
    missing = []
    for file, name in sorted(refs):
        path = ROOT / file
        if not path.exists() or not re.search(rf"^def {name}\(", path.read_text(), re.M):
            missing.append(f"{file}::{name}")
    assert not missing, "named in docs/errata.md but not found: " + ", ".join(missing)


def test_the_number_check_reads_digits_as_shown() -> None:
    assert _shown(3.730631, "3.73063") and not _shown(3.73075, "3.73063")
    assert (
        _shown(17.1449, "17.14")
        and _shown(0.99998, "0.999980")
        and _shown(math.pi, "3.1416")
        and not _shown(math.pi, "3.1415")
    )
