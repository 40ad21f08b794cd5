"""Opening a catalogue file safely: a file that is not a DuckDB database, a damaged
one or one another process holds is refused with a clear ``CatalogueError`` before
anything is written (``connect``); DuckDB never installs an extension for it."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from formhunter.exceptions import CatalogueError

#: DuckDB's file header (magic and two database headers), before the first block.
_HEADER_BYTES = 3 * 4096
#: DuckDB's words for a file another process holds (not "block" of a checksum error)
_LOCKED = re.compile(r"could not set lock|conflicting lock|\block(ed)? by\b", re.IGNORECASE)
_DAMAGED_HINT = "formhunter neither reads nor writes it: restore a copy, or use another --db"
#: A catalogue never needs an extension; DuckDB would download one to read a SQLite file.
DUCKDB_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False, "autoload_known_extensions": False,
}  # fmt: skip
_MAGIC = {
    b"SQLite format 3\x00": "a SQLite database", b"\x1f\x8b": "gzip data",
    b"PK\x03\x04": "a zip archive", b"PAR1": "a Parquet file", b"ARROW1": "an Arrow file",
}  # fmt: skip


def check_file(path: Path) -> bool:
    """Refuse, without DuckDB, a file that is not a DuckDB database at all; True
    for a DuckDB file (then checked by ``check_intact``), False for an empty one.

    An empty file is left to DuckDB (``touch``-ed catalogues). A DuckDB file has
    ``DUCK`` at byte 8. The rest of the check is ``check_intact``: the
    file must hold every block its header counts (truncation), anything after
    them must be whole blocks (a kill during a checkpoint leaves such; garbage
    does not), and every block of every table must pass DuckDB's checksum.
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEADER_BYTES)
    except OSError as exc:
        raise CatalogueError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not head:
        return False
    if head[8:12] == b"DUCK":
        if len(head) < _HEADER_BYTES:
            raise CatalogueError(
                f"cannot open {path}: it is damaged, truncated ({len(head)} bytes, shorter "
                f"than DuckDB's header). {_DAMAGED_HINT}"
            )
        return True
    what = next((name for magic, name in _MAGIC.items() if head.startswith(magic)), "")
    if not what:
        what = "all zero bytes" if not head.strip(b"\x00") else "not a DuckDB database"
    raise CatalogueError(
        f"cannot open {path}: it is not a formhunter catalogue ({what}); formhunter "
        "neither reads nor writes it: use another --db"
    )


def check_intact(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Raise CatalogueError when the DuckDB file at ``path`` is damaged (``_check_file``)."""
    try:
        row = con.execute("PRAGMA database_size").fetchone()
        # used, not total: DuckDB truncates free blocks at the end of the file, which
        # total_blocks still counts (a file killed after such a checkpoint is whole)
        block_size, used_blocks = (int(row[2]), int(row[4])) if row else (0, 0)
        if block_size > 0:
            needed = _HEADER_BYTES + used_blocks * block_size
            size = path.stat().st_size
            if size < needed:
                raise CatalogueError(
                    f"cannot open {path}: it is damaged, truncated ({size:,} bytes, the database "
                    f"needs {needed:,}). {_DAMAGED_HINT}"
                )
            if (size - _HEADER_BYTES) % block_size:
                raise CatalogueError(
                    f"cannot open {path}: it is damaged, {size - needed:,} bytes follow the "
                    f"end of the database that DuckDB did not write. {_DAMAGED_HINT}"
                )
        tables = con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
            " AND table_type = 'BASE TABLE'"  # a view holds no blocks of its own
        ).fetchall()
        for (table,) in sorted(tables):
            # every column of every row: DuckDB checks each block's checksum as it reads it
            con.execute(f'SELECT count(*), bit_xor(hash(COLUMNS(*))) FROM "{table}"').fetchall()
    except duckdb.Error as exc:
        msg = str(exc).splitlines()[0]
        raise CatalogueError(f"cannot open {path}: it is damaged ({msg}). {_DAMAGED_HINT}") from exc


def connect(path: Path, *, read_only: bool, memory_mb: int = 0) -> duckdb.DuckDBPyConnection:
    """A connection to the catalogue at ``path``, checked first (module doc); ``memory_mb``:
    DuckDB's memory limit for it (``[crawl] db_memory_mb``; 0: DuckDB's own)."""
    config = dict(DUCKDB_CONFIG)
    if memory_mb:
        config["memory_limit"] = f"{memory_mb}MiB"
    try:
        if path.exists() and check_file(path):
            # checked on a read-only connection first: nothing may write a damaged file
            with duckdb.connect(str(path), read_only=True, config=config) as con:
                check_intact(con, path)
        return duckdb.connect(str(path), read_only=read_only, config=config)
    except duckdb.Error as exc:
        msg = str(exc).splitlines()[0]
        if _LOCKED.search(msg):
            raise CatalogueError(
                f"{path} is in use by another process (DuckDB allows one writer): {msg}"
            ) from exc
        if "corrupt" in msg.lower() or "checksum" in msg.lower():
            raise CatalogueError(
                f"cannot open {path}: it is damaged ({msg}). {_DAMAGED_HINT}") from exc
        raise CatalogueError(f"cannot open {path} as a DuckDB catalogue: {msg}") from exc
