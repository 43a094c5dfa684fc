"""A visitor's own CSV on the negotiate page: read and judge the file, then release its table with the leading
mechanisms at the recommended ε, beside the true one.

Nothing here is cached or written anywhere: the file lives in the visitor's session only (Streamlit keeps an
upload in memory until it is removed or the session ends), so one visitor's data never reaches another's page.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd

from app.notation import number
from dpcore import release as _release

MAX_BYTES = 1024 * 1024  # 1 MB
MAX_CATEGORIES = 50  # more would not fit a readable chart; a release of many more is the script's job
MAX_ROWS = 200_000


class BadFile(ValueError):
    """A file the page cannot use, with a message that says what is wrong and what to do."""


def read_table(data: bytes) -> pd.DataFrame:
    """The CSV as a table of texts (columns by their header), or :class:`BadFile` saying what is wrong."""
    if len(data) > MAX_BYTES:
        raise BadFile(
            f"The file has {number(len(data) / MAX_BYTES, 3)} MB; at most 1 MB is accepted. Upload a "
            "smaller extract (the script handles any size on your own computer)."
        )
    if not data.strip():
        raise BadFile("The file is empty.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadFile(
            "The file is not UTF-8 text (wrong encoding, or not a text file at all): save it as "
            f'"CSV UTF-8" and upload it again (byte {exc.start + 1} cannot be read).'
        ) from None
    if "\x00" in text:
        raise BadFile("The file holds binary data, not CSV text.")
    try:
        frame = pd.read_csv(
            io.StringIO(text), dtype=str, keep_default_na=False, skipinitialspace=True, nrows=MAX_ROWS + 1
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, csv.Error, ValueError) as exc:
        raise BadFile(_unreadable(str(exc))) from None
    first = next(csv.reader(io.StringIO(text.split("\n", 1)[0])), [])
    header = [c.strip() for c in first] if len(first) == len(frame.columns) else [str(c).strip() for c in frame.columns]
    if not header or any(_looks_like_data(h) for h in header):
        raise BadFile(
            'The first row must name the columns (a header row such as "county,income"); it holds '
            f"{', '.join(repr(h) for h in header[:4])}. Add a header row and upload again."
        )
    if len(set(header)) != len(header):
        raise BadFile("Two columns have the same name in the header row; give every column its own name.")
    if frame.empty:
        raise BadFile("The file has a header row but no data rows.")
    if len(frame) > MAX_ROWS:
        raise BadFile(f"The file has more than {MAX_ROWS:,} rows; upload a smaller extract.")
    frame.columns = header
    return frame


#: What the CSV parser says of a row with more cells than the header, and of a quote never closed.
_CELLS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_QUOTE = re.compile(r"EOF inside string starting at row (\d+)")


def _unreadable(said: str) -> str:
    """Why the file is not a CSV table, in the reader's words (not the parser's)."""
    if m := _CELLS.search(said):
        header, line, cells = (int(g) for g in m.groups())
        return (
            f"Line {line} of the file has {cells} cells where the header row names {header} columns: a value with a "
            'comma in it needs quotes ("Smith, J."). Correct that line and upload again.'
        )
    if m := _QUOTE.search(said):
        return (
            f"A quotation mark opened on line {int(m.group(1)) + 1} is never closed. Close it (or remove it) and "
            "upload again."
        )
    return "The file is not a CSV table (values separated by commas, one header row naming the columns)."


def _looks_like_data(cell: str) -> bool:
    if not cell or cell.startswith("Unnamed:"):
        return True
    try:
        float(cell.replace(",", ""))
    except ValueError:
        return False
    return True


def is_numeric(frame: pd.DataFrame, column: str) -> bool:
    """Every non-blank value of the column is a number."""
    values = frame[column].str.strip()
    values = values[values != ""]
    return bool(len(values)) and bool(pd.to_numeric(values, errors="coerce").notna().all())


def check_categories(frame: pd.DataFrame, column: str) -> None:
    """:class:`BadFile` when the column has more categories than a chart can show."""
    n = frame[column].str.strip().replace("", np.nan).dropna().nunique()
    if n > MAX_CATEGORIES:
        raise BadFile(
            f'Column "{column}" has {n:,} different values; at most {MAX_CATEGORIES} categories can be '
            "shown here. Choose a column of categories (such as a county), or a column of numbers to sum."
        )


def check_numbers(frame: pd.DataFrame, column: str) -> None:
    """:class:`BadFile` naming the first value of the column that is not a number."""
    values = frame[column].str.strip()
    bad = (values != "") & pd.to_numeric(values, errors="coerce").isna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise BadFile(
            f'Column "{column}" must hold numbers to be summed, but row {row + 2} holds '
            f'"{str(values.iloc[row])[:40]}". Fix that value, or choose the column as categories.'
        )


def releases(frame: pd.DataFrame, plans: list[_release.Plan], seed: int) -> pd.DataFrame:
    """The true table and one release per plan, long form: name, mechanism, true, noisy, within (±), probability.

    The draws are seeded (an illustration of what a release looks like, repeatable while the settings stay);
    a real release draws fresh secret randomness (the script)."""
    rng = np.random.default_rng(seed)
    parts = []
    for p in plans:
        truth = _release.true_values(p, frame)
        out = _release.perform(p, frame, rng)
        out["true"] = truth.to_numpy()
        out["mechanism"] = p.mechanism
        parts.append(out)
    return pd.concat(parts, ignore_index=True)
