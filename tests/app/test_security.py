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
    "eval",
    "exec",
    "compile",
    "__import__",
    "builtins.eval",
    "builtins.exec",
    "pickle.loads",
    "pickle.load",
    "pickle.Unpickler",
    "cPickle.loads",
    "marshal.loads",
    "marshal.load",
    "dill.loads",
    "shelve.open",
    "os.system",
    "os.popen",
    "yaml.unsafe_load",
    "yaml.full_load",
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
        elif (
            full.startswith("subprocess.")
            and isinstance(kwargs.get("shell"), ast.Constant)
            and kwargs["shell"].value is True
        ):
            found.append(f"line {node.lineno}: {full}(shell=True)")
        elif full in ("pandas.read_pickle", "pd.read_pickle"):
            found.append(f"line {node.lineno}: {full}()")
        elif (
            full in ("numpy.load", "np.load")
            and isinstance(kwargs.get("allow_pickle"), ast.Constant)
            and kwargs["allow_pickle"].value is True
        ):
            found.append(f"line {node.lineno}: {full}(allow_pickle=True)")
    return found


#: Calls a module may make, with the reason they touch no outside data.
ALLOWED = {
    "app/compute/_cache.py": {
        "pickle.loads": "the compute cache unpickles only the bytes it pickled itself, in the "
        "same process (a copy of each cached value per caller)"
    },
}


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_no_module_evaluates_or_unpickles_data(path):
    allowed = ALLOWED.get(str(path.relative_to(ROOT)), {})
    found = [c for c in dangerous_calls(path.read_text()) if c.split(": ", 1)[1].removesuffix("()") not in allowed]
    assert not found, found


def test_the_code_check_catches_what_it_looks_for():
    """The checker itself: each pattern is caught, safe look-alikes are not."""
    bad = [
        "eval(text)",
        "exec(code)",
        "import pickle\npickle.loads(b)",
        "import pickle as pk\npk.loads(b)",
        "from pickle import loads\nloads(b)",
        "import yaml\nyaml.load(s)",
        "import yaml\nyaml.unsafe_load(s)",
        "import subprocess\nsubprocess.run(cmd, shell=True)",
        "import os\nos.system(cmd)",
        "import pandas as pd\npd.read_pickle(f)",
        "import numpy as np\nnp.load(f, allow_pickle=True)",
        "__import__('os')",
    ]
    for src in bad:
        assert dangerous_calls(src), src
    safe = [
        "import yaml\nyaml.load(s, Loader=yaml.SafeLoader)",
        "import yaml\nyaml.safe_load(s)",
        "x.eval()",
        "df.eval",
        "import subprocess\nsubprocess.run(['ls'])",
        "import numpy as np\nnp.load(f)",
        "import json\njson.loads(s)",
        "import ast\nast.literal_eval(s)",
    ]
    for src in safe:
        assert not dangerous_calls(src), src


def _uploaders(source: str) -> list[ast.Call]:
    return [
        n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and _dotted(n.func).endswith("file_uploader")
    ]


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

    loader = next(
        (
            getattr(ledger, n)
            for n in ("from_json", "load", "loads", "import_ledger", "parse")
            if callable(getattr(ledger, n, None))
        ),
        None,
    )
    if loader is None:
        pytest.fail(f"no import function found in dpcore.ledger ({ledger.__all__})")
    with pytest.raises(ValueError):
        loader("[" * (ledger.MAX_BYTES + 10))
    with pytest.raises(ValueError):
        loader("{not json")


# ---- a link carries only values the page checked -----------------------------------------------------------------


def _share_link(at) -> str:
    from app import classroom
    from tests.app.conftest import open_boxes

    codes = [c.value for c in open_boxes(at, classroom.SHARE_KEY).code]
    assert len(codes) == 1, codes
    return codes[0]


HOSTILE = "[click](javascript:alert(4))"


@pytest.mark.parametrize(
    "query,dropped",
    [
        ({"step": HOSTILE}, "step"),  # a lesson's view without its lesson
        ({"seq": "start", "step": HOSTILE}, "step"),  # a lesson, but not one of its views
        ({"seq": "start", "step": "99"}, "step"),  # the lesson has fewer views
        ({"seq": HOSTILE, "step": "1"}, "seq"),  # no such lesson (its step goes with it)
        ({"seq": "~" + "A" * 40, "step": "1"}, "seq"),  # a damaged lesson code
        ({"ledger": HOSTILE}, "ledger"),
        ({"ledger": "<img src=x onerror=alert(1)>"}, "ledger"),
        ({"part": HOSTILE}, "part"),  # not one of the page's parts
    ],
)
def test_the_share_link_drops_values_the_page_did_not_accept(query, dropped):
    from urllib.parse import parse_qs, urlsplit

    from tests.app.conftest import open_page

    at = open_page("brdp.py", {"eps": "2", **query})
    assert not at.exception, at.exception
    link = _share_link(at)
    shared = parse_qs(urlsplit(link).query)
    assert dropped not in shared, link
    assert "javascript" not in link and "alert" not in link and "<" not in link, link
    assert shared["eps"] == ["2"], "the checked values stay"
    controls = {w.key for w in (*at.select_slider, *at.radio, *at.toggle, *at.number_input)}
    assert set(shared) <= controls | {"part", "seq", "step", "ledger"}, shared
    address = dict(at.query_params)
    assert dropped not in address or address[dropped] != query[dropped], "the address bar follows the link"


def test_the_share_link_keeps_a_lesson_and_its_view_and_a_part_the_page_has():
    from urllib.parse import parse_qs, urlsplit

    from tests.app.conftest import open_page

    at = open_page("brdp.py", {"seq": "brdp", "step": " 3", "part": "Budget"})
    assert not at.exception and not at.error, [e.value for e in at.error]
    shared = parse_qs(urlsplit(_share_link(at)).query)
    assert shared["seq"] == ["brdp"] and shared["step"] == ["3"] and shared["part"] == ["Budget"]


def test_kept_values_are_checked_one_by_one():
    from app import ledger_store, params, sequences

    good = ledger_store.new_id()
    custom = sequences.encode([sequences.Step("baselines", {"eps": "2"}, "one"), sequences.Step("svt")])
    check = params.checked_keep_values
    assert check({"ledger": good, "seq": "svt", "step": "2"}) == {"ledger": good, "seq": "svt", "step": "2"}
    assert list(check({"step": "2", "seq": custom, "ledger": good})) == ["ledger", "seq", "step"]  # one order
    assert check({"seq": custom, "step": "3"}) == {"seq": custom}
    assert check({"ledger": good[:-1] + "/", "step": "1"}) == {}
    assert check({"seq": None, "step": None, "ledger": None}) == {}


# ---- the lesson servers answer only to this machine's names ------------------------------------------------------


def _guarded(scope_type: str, headers: list[tuple[bytes, bytes]]) -> list[dict]:
    import asyncio
    import concurrent.futures

    from app.host_guard import HostGuard

    reached: list[dict] = []

    async def inner(scope, receive, send):
        reached.append({"type": "reached"})

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    scope = {"type": scope_type, "path": "/api/files/list_files", "headers": headers}
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # asyncio.run on a thread of its own (see test_serve)
        pool.submit(asyncio.run, HostGuard(inner)(scope, receive, send)).result()
    return reached or sent


@pytest.mark.parametrize(
    "host,origin,passes",
    [
        (b"127.0.0.1:2718", None, True),
        (b"localhost:2718", b"http://localhost:2718", True),
        (b"LOCALHOST", None, True),
        (b"[::1]:2719", b"http://[::1]:2719", True),
        (b"127.0.0.1:2719", b"http://127.0.0.1:8501", True),  # the app's page on this machine
        (b"evil.example:2718", None, False),  # a name rebound to 127.0.0.1
        (b"127.0.0.1.evil.example:2718", None, False),
        (b"localhost.evil.example", None, False),
        (b"127.0.0.1:2718", b"http://evil.example", False),  # another site's page
        (b"127.0.0.1:2718", b"null", False),
        (b"127.0.0.1:27x8", None, False),
        (b"", None, False),
    ],
)
def test_the_lesson_servers_refuse_foreign_hosts_and_origins(host, origin, passes):
    headers = [(b"host", host)] + ([(b"origin", origin)] if origin is not None else [])
    for kind in ("http", "websocket"):
        out = _guarded(kind, headers)
        if passes:
            assert out == [{"type": "reached"}], (kind, out)
        elif kind == "http":
            assert out[0]["status"] == 403 and b"DPX_LESSON_HOSTS" in out[1]["body"], out
        else:
            assert out == [{"type": "websocket.close", "code": 1008, "reason": ""}], out


def test_names_listed_for_the_lessons_pass(monkeypatch):
    from app import host_guard

    monkeypatch.setenv(host_guard.HOSTS_ENV, "lessons.school.example, 10.0.0.5")
    assert _guarded("http", [(b"host", b"lessons.school.example:2718")]) == [{"type": "reached"}]
    assert _guarded("http", [(b"host", b"10.0.0.5:2718"), (b"origin", b"http://10.0.0.5:8501")]) == [
        {"type": "reached"}
    ]
    assert _guarded("http", [(b"host", b"school.example:2718")])[0]["status"] == 403


def test_every_marimo_server_of_this_environment_loads_the_guard():
    from importlib.metadata import entry_points

    from marimo._server.registry import MIDDLEWARE_REGISTRY

    from app import host_guard

    assert [ep.value for ep in entry_points(group="marimo.server.asgi.middleware")] == ["app.host_guard:MIDDLEWARE"]
    assert host_guard.MIDDLEWARE in MIDDLEWARE_REGISTRY.get_all()


def test_the_lesson_editor_keeps_its_token_and_only_read_only_servers_go_without():
    """`marimo edit` (which changes code and reads files) never runs with --no-token; a server without a token is
    `marimo run` (read-only lessons), bound to loopback."""
    lines = [line for line in (ROOT / "Makefile").read_text().splitlines() if "/marimo " in line]
    edits = [line for line in lines if "marimo edit" in line]
    assert edits and not [line for line in edits if "--no-token" in line], edits
    for line in lines:
        if "--no-token" in line:
            assert "marimo run " in line and "--host 127.0.0.1" in line, line
