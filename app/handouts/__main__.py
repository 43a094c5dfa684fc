"""``python -m app.handouts [--out build/handouts] [topic ...]``: write ``<out>/<topic>.html`` for each topic (all
by default: the first course and every paper)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from app.handouts import topics


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m app.handouts", description=__doc__.splitlines()[0])
    ap.add_argument("topics", nargs="*", help="which handouts (default: all): " + ", ".join(topics.TOPICS))
    ap.add_argument("--out", default=str(topics.ROOT / "build" / "handouts"))
    a = ap.parse_args(argv)
    # pages run outside a server: Streamlit warns that it has no script context, which says nothing to a reader
    # (a handout that cannot be written raises, and says why)
    logging.disable(logging.WARNING)
    os.environ.setdefault("DPX_BACKGROUND", "inline")  # a page's heavy panels computed in this process, no workers
    wanted = a.topics or list(topics.TOPICS)
    unknown = [t for t in wanted if t not in topics.TOPICS]
    if unknown:
        ap.error(f"no handout {', '.join(unknown)}; the handouts are: {', '.join(topics.TOPICS)}")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for topic in wanted:
        path = out / f"{topic}.html"
        path.write_text(topics.build(topic).html(), encoding="utf-8")
        print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
