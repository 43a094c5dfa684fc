"""The project's shape: every import is one docs/architecture.md's layer table allows (read from the document, so the
document and the code cannot drift), no import cycle, small modules, thin pages, and nothing that points outside the
repository."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("dpcore", "app")
#: Where the layer table lives: every module of these folders falls in one of its rows.
LAYERED = (*PACKAGES, "pages", "notebooks")
ARCHITECTURE = ROOT / "docs" / "architecture.md"
#: Top-level modules a distribution installs besides its own name (plotly ships ``_plotly_utils``).
SAME_DISTRIBUTION = {"_plotly_utils": "plotly"}


def _modules(folders: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    out = {}
    for pkg in folders:
        for path in (ROOT / pkg).rglob("*.py"):
            rel = path.relative_to(ROOT).with_suffix("")
            name = ".".join(rel.parts)
            out[name.removesuffix(".__init__")] = path
    return out


def _type_checking_only(tree: ast.Module) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (read by type checkers, never run)."""
    return {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test)
        for part in node.body
        for n in ast.walk(part)
        if isinstance(n, ast.Import | ast.ImportFrom)
    }


def imports(name: str, path: Path, mods: dict[str, Path]) -> list[tuple[str, bool]]:
    """Everything ``name`` imports anywhere in its file (module level, inside functions, under ``TYPE_CHECKING``):
    (the project module, or the top-level name of another package, and whether the import is for type checking only).
    """
    tree = ast.parse(path.read_text())
    typing_only = _type_checking_only(tree)
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def project(module: str) -> str | None:  # the project module a dotted name is, or lies in
        while module and module not in mods:
            module = module.rpartition(".")[0]
        return module or None

    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [project(a.name) or a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            targets = [project(f"{base}.{a.name}") or project(base) or base.split(".")[0] for a in node.names]
        else:
            continue
        out += [(t, id(node) in typing_only) for t in targets]
    return out


def import_graph() -> dict[str, set[str]]:
    """module → the project modules it imports when it runs: at module level or inside a function (an import put in a
    function to dodge a cycle is still a cycle), not those under ``if TYPE_CHECKING:``."""
    mods = _modules()
    return {
        name: {t for t, typing_only in imports(name, path, mods) if t in mods and not typing_only}
        for name, path in mods.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    sys.setrecursionlimit(10_000)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    assert _cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]


def _backticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def layer_table() -> list[tuple[tuple[str, ...], set[str]]]:
    """docs/architecture.md's layer table: (the paths of a row, what the row may import), one entry per row.

    A path ending in ``/`` is a folder and everything under it. What a row may import is every backticked word in its
    last column: a path of the project, or a package's top-level name; anything else in that column is commentary."""
    text = ARCHITECTURE.read_text()
    section = text.split("## The layers and what each may import", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    out = []
    for line in rows:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        out.append((tuple(_backticked(cells[0])), set(_backticked(cells[-1]))))
    return out


def _matches(pattern: str, rel: str) -> bool:
    return rel.startswith(pattern) if pattern.endswith("/") else rel == pattern


def _row_of(rel: str, table: list[tuple[tuple[str, ...], set[str]]]) -> tuple[tuple[str, ...], set[str]] | None:
    """The table's row of a file: the one with the longest path that matches it (a file's own row before its
    folder's)."""
    hits = [(len(p), row) for row in table for p in row[0] if _matches(p, rel)]
    return max(hits, key=lambda h: h[0])[1] if hits else None


def test_the_layer_table_names_every_module_and_every_row_has_modules():
    table = layer_table()
    assert len(table) >= 10, "the layer table was not found in docs/architecture.md"
    files = [p.relative_to(ROOT).as_posix() for p in _modules(LAYERED).values()]
    assert [f for f in files if _row_of(f, table) is None] == []
    stale = [p for paths, _ in table for p in paths if not any(_matches(p, f) for f in files)]
    assert stale == []


def test_every_import_is_one_the_layer_table_allows():
    """Each module imports (anywhere in its file) only its own layer, the project paths its row names and the
    packages its row names; the standard library is always allowed."""
    table = layer_table()
    mods = _modules(LAYERED)
    wrong = []
    for name, path in sorted(mods.items()):
        rel = path.relative_to(ROOT).as_posix()
        paths, allowed = _row_of(rel, table) or ((), set())
        ok_paths = [*paths, *(a for a in allowed if "/" in a)]
        for target, _ in imports(name, path, mods):
            if target in mods:
                good = any(_matches(p, mods[target].relative_to(ROOT).as_posix()) for p in ok_paths)
            else:
                top = SAME_DISTRIBUTION.get(target, target)
                good = top in sys.stdlib_module_names or top == "__future__" or top in allowed
            if not good:
                wrong.append(f"{rel} imports {target}")
    assert sorted(set(wrong)) == [], "not in docs/architecture.md's layer table"


def test_the_table_keeps_drawing_out_of_dpcore_and_dp_accounting_in_one_module():
    """The table's own promises, so that loosening it is a visible change of this test too."""
    table = layer_table()
    dpcore_rows = [allowed for paths, allowed in table if any(p.startswith("dpcore/") for p in paths)]
    assert dpcore_rows and all(not allowed & {"streamlit", "plotly", "marimo", "app/"} for allowed in dpcore_rows)
    assert [paths for paths, allowed in table if "dp_accounting" in allowed] == [
        ("dpcore/accounting/_dp_accounting.py",)
    ]
    for folder in ("app/compute/", "app/figures/", "app/catalogue/"):
        assert "streamlit" not in _row_of(folder + "x.py", table)[1], folder


def test_the_import_reader_sees_function_level_and_relative_imports(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "b.py").write_text("")
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import b\n"
        "def f():\n    from . import b\n    import numpy.linalg\n"
    )
    mods = {"pkg": pkg / "__init__.py", "pkg.a": pkg / "a.py", "pkg.b": pkg / "b.py"}
    assert sorted(imports("pkg.a", pkg / "a.py", mods)) == [
        ("numpy", False),
        ("pkg.b", False),
        ("pkg.b", True),
        ("typing", False),
    ]


#: Most lines a module of the maths or the app may have: past it, a module holds more than one concern.
MODULE_LINES = 600


def test_modules_are_small_and_pages_are_shims():
    for name, path in _modules().items():
        assert len(path.read_text().splitlines()) <= MODULE_LINES, f"{name} is over {MODULE_LINES} lines"
    for page in (ROOT / "pages").glob("*.py"):
        assert len(page.read_text().splitlines()) <= 30, page.name


#: What must not appear in any tracked file: paths to material outside the repository, internal document sections
#: and codes, issue numbers. (Plotly's and Streamlit's own ``proto.spec`` attribute is not such a reference.)
#: Built from pieces so that this line does not match itself.
OUTSIDE = re.compile(
    "|".join(
        [
            r"\.\./" + "shared",
            "shared" + r"/(specs|papers|ARCHITECTURE)",
            "spec" + " §",
            r"\(spec[ §,;:]",
            "the" + r" spec\b",
            "spec's",
            "issue" + " [0-9]+",
        ]
    )
)


def test_nothing_points_outside_the_repository():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    hits = []
    for rel in files:
        path = ROOT / rel
        if path.suffix in {".png", ".ico", ".jpg"} or not path.is_file():
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if OUTSIDE.search(line) and rel != "tests/project/test_structure.py":
                hits.append(f"{rel}:{n}: {line.strip()[:100]}")
    assert not hits, "\n".join(hits[:40])
