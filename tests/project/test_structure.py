"""The project's shape: layers import only downwards, no import cycle, small modules, thin pages, dp_accounting in
one module, and nothing that points outside the repository."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("dpcore", "app")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            rel = path.relative_to(ROOT).with_suffix("")
            name = ".".join(rel.parts)
            out[name.removesuffix(".__init__")] = path
    return out


def _import_time_nodes(tree: ast.Module):
    """Imports that run when the module is imported: module level, not under ``if TYPE_CHECKING:``."""
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If | ast.Try):
            yield from (n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom))


def import_graph() -> dict[str, set[str]]:
    """module → the project modules it imports at import time."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _import_time_nodes(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name in mods}
                continue
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                graph[name].add(full if full in mods else base) if (full in mods or base in mods) else None
    return graph


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


def test_dpcore_never_draws_and_touches_dp_accounting_in_one_module():
    for name, path in _modules().items():
        text = path.read_text()
        imports = {n.module or "" for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ImportFrom)} | {
            a.name for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Import) for a in n.names}
        tops = {i.split(".")[0] for i in imports}
        if name.startswith("dpcore"):
            assert not tops & {"streamlit", "plotly", "marimo", "app"}, name
        if "dp_accounting" in tops:
            assert name == "dpcore.accounting._dp_accounting", f"{name} imports dp_accounting"


def test_modules_are_small_and_pages_are_shims():
    for name, path in _modules().items():
        assert len(path.read_text().splitlines()) <= 800, f"{name} is over 800 lines"
    for page in (ROOT / "pages").glob("*.py"):
        assert len(page.read_text().splitlines()) <= 30, page.name


#: What must not appear in any tracked file: paths to material outside the repository, internal document sections
#: and codes, issue numbers. (Plotly's and Streamlit's own ``proto.spec`` attribute is not such a reference.)
#: Built from pieces so that this line does not match itself.
OUTSIDE = re.compile("|".join([
    r"\.\./" + "shared", "shared" + r"/(specs|papers|ARCHITECTURE)", "spec" + " §", r"\(spec[ §,;:]",
    "the" + r" spec\b", "spec's", "issue" + " [0-9]+",
]))


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
