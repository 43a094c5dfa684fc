"""Security settings: loopback by default, XSRF protection on, nothing evaluates user text.

The config checks read the files the app is served with; the code check parses every module under dpcore/, app/
and pages/ and looks for calls that evaluate or unpickle data (eval, exec, compile, pickle/marshal loads, yaml.load
without a safe loader, os.system, subprocess with shell=True).
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for d in ("dpcore", "app", "pages") for p in (ROOT / d).rglob("*.py"))


def test_streamlit_config_binds_loopback_and_keeps_xsrf():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    server = config["server"]
    assert server["address"] == "127.0.0.1"
    assert server.get("enableXsrfProtection", True) is True
    assert server.get("enableCORS", True) is True  # CORS off would also disable XSRF protection
    assert config.get("global", {}).get("developmentMode", False) is False


def test_make_app_binds_loopback():
    text = (ROOT / "Makefile").read_text()
    target = re.search(r"^app:.*?(?=^\S)", text, re.M | re.S)
    assert target, "Makefile has an app target"
    body = target.group(0)
    assert "streamlit run" in body
    assert re.search(r"--server\.address[ =]127\.0\.0\.1\b", body), body
    assert "enableXsrfProtection false" not in body and "enableCORS false" not in body


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


FORBIDDEN = {
    "eval", "exec", "compile", "__import__", "builtins.eval", "builtins.exec",
    "pickle.loads", "pickle.load", "pickle.Unpickler", "cPickle.loads", "marshal.loads", "marshal.load",
    "dill.loads", "shelve.open", "os.system", "os.popen", "yaml.unsafe_load", "yaml.full_load",
}


def dangerous_calls(source: str) -> list[str]:
    """Calls that evaluate code or untrusted bytes, by dotted name (``yaml.load`` only without SafeLoader)."""
    found = []
    tree = ast.parse(source)
    aliases = {}  # import pickle as pk / from pickle import loads
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        head, _, rest = name.partition(".")
        full = f"{aliases.get(head, head)}.{rest}" if rest else aliases.get(head, head)
        kwargs = {k.arg: k.value for k in node.keywords}
        if full in FORBIDDEN:
            found.append(f"line {node.lineno}: {full}()")
        elif full == "yaml.load" and "SafeLoader" not in ast.dump(kwargs.get("Loader", ast.Constant(None))):
            found.append(f"line {node.lineno}: yaml.load() without SafeLoader")
        elif full.startswith("subprocess.") and isinstance(kwargs.get("shell"), ast.Constant) \
                and kwargs["shell"].value is True:
            found.append(f"line {node.lineno}: {full}(shell=True)")
        elif full in ("pandas.read_pickle", "pd.read_pickle"):
            found.append(f"line {node.lineno}: {full}()")
        elif full in ("numpy.load", "np.load") and isinstance(kwargs.get("allow_pickle"), ast.Constant) \
                and kwargs["allow_pickle"].value is True:
            found.append(f"line {node.lineno}: {full}(allow_pickle=True)")
    return found


#: Calls a module may make, with the reason they touch no outside data.
ALLOWED = {
    "app/compute/_cache.py": {"pickle.loads": "the compute cache unpickles only the bytes it pickled itself, in the "
                                              "same process (a copy of each cached value per caller)"},
}


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_no_module_evaluates_or_unpickles_data(path):
    allowed = ALLOWED.get(str(path.relative_to(ROOT)), {})
    found = [c for c in dangerous_calls(path.read_text()) if c.split(": ", 1)[1].removesuffix("()") not in allowed]
    assert not found, found


def test_the_code_check_catches_what_it_looks_for():
    """The checker itself: each pattern is caught, safe look-alikes are not."""
    bad = [
        "eval(text)", "exec(code)", "import pickle\npickle.loads(b)", "import pickle as pk\npk.loads(b)",
        "from pickle import loads\nloads(b)", "import yaml\nyaml.load(s)", "import yaml\nyaml.unsafe_load(s)",
        "import subprocess\nsubprocess.run(cmd, shell=True)", "import os\nos.system(cmd)",
        "import pandas as pd\npd.read_pickle(f)", "import numpy as np\nnp.load(f, allow_pickle=True)",
        "__import__('os')",
    ]
    for src in bad:
        assert dangerous_calls(src), src
    safe = [
        "import yaml\nyaml.load(s, Loader=yaml.SafeLoader)", "import yaml\nyaml.safe_load(s)",
        "x.eval()", "df.eval", "import subprocess\nsubprocess.run(['ls'])", "import numpy as np\nnp.load(f)",
        "import json\njson.loads(s)", "import ast\nast.literal_eval(s)",
    ]
    for src in safe:
        assert not dangerous_calls(src), src


def _uploaders(source: str) -> list[ast.Call]:
    return [n for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Call) and _dotted(n.func).endswith("file_uploader")]


def test_file_imports_are_size_limited():
    """Every st.file_uploader sets a small max_upload_size (MB) and restricts the file type; there is one (ledger)."""
    calls = [(p, c) for p in SOURCES for c in _uploaders(p.read_text())]
    assert calls, "the ledger page imports a file: its uploader should be found"
    for path, call in calls:
        kw = {k.arg: k.value for k in call.keywords}
        limit = kw.get("max_upload_size")
        assert isinstance(limit, ast.Constant) and 0 < limit.value <= 5, f"{path}:{call.lineno}: no small size limit"
        assert "type" in kw or len(call.args) >= 2, f"{path}:{call.lineno}: any file type accepted"


def test_ledger_import_refuses_big_files_before_parsing():
    """The import itself is validated in dpcore (size first, then format): a huge or malformed file is a ValueError."""
    from dpcore import ledger

    loader = next((getattr(ledger, n) for n in ("from_json", "load", "loads", "import_ledger", "parse")
                   if callable(getattr(ledger, n, None))), None)
    if loader is None:
        pytest.fail(f"no import function found in dpcore.ledger ({ledger.__all__})")
    with pytest.raises(ValueError):
        loader("[" * (ledger.MAX_BYTES + 10))
    with pytest.raises(ValueError):
        loader("{not json")
