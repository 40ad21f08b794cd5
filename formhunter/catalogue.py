"""The catalogue: one DuckDB file holding runs, pages, forms and the frontier.

Schema (ARCHITECTURE.md §4, plus the extra columns listed in ``MIGRATIONS``):
``runs``, ``pages``, ``forms``, ``form_fields``, ``form_paths``, ``frontier``,
``learning_iterations``, ``form_labels``, ``learner_state``, ``robots``, ``warc_files``,
``probes``, ``form_probes`` and ``schema_version``. A form seen again on the same site in
the same run is one form: (run_id, site, signature) is unique.

Writing: one ``Catalogue`` object (the engine's) is the only writer. Rows are
buffered in memory and written in bulk (Arrow tables) at ``commit()``, in one
transaction together with every registered flusher (the persistent frontier):
a commit point is all-or-nothing, so a SIGKILL loses at most the work since the
last commit. Opening a file written by a newer schema version raises
``SchemaVersionError``; older versions are migrated forward on open.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from formhunter import directory, killpoints
from formhunter.directory import NOT_SEARCHABLE, OTHER_DOMAIN
from formhunter.exceptions import CatalogueError, SchemaVersionError, UsageError
from formhunter.model import Form, Page, Verdict
from formhunter.urls import strip_userinfo
from formhunter.warc import WarcFile

log = logging.getLogger(__name__)

_V1 = [
    """CREATE TABLE IF NOT EXISTS runs(
        run_id INTEGER, started_at TIMESTAMP, finished_at TIMESTAMP, domain VARCHAR,
        strategy VARCHAR, max_pages BIGINT, config VARCHAR, status VARCHAR,
        pages_fetched BIGINT DEFAULT 0, forms BIGINT DEFAULT 0,
        searchable_forms BIGINT DEFAULT 0, relevant_forms BIGINT DEFAULT 0,
        errors VARCHAR, counters VARCHAR, seeds VARCHAR)""",
    """CREATE TABLE IF NOT EXISTS pages(
        run_id INTEGER, seq BIGINT, url VARCHAR, final_url VARCHAR, site VARCHAR,
        host VARCHAR, status INTEGER, error VARCHAR, content_type VARCHAR,
        fetched_at TIMESTAMP, depth INTEGER, on_topic BOOLEAN, page_score DOUBLE,
        n_links INTEGER, n_forms INTEGER, bytes BIGINT, elapsed DOUBLE,
        parent_url VARCHAR, anchor VARCHAR, title VARCHAR, rendered BOOLEAN)""",
    """CREATE TABLE IF NOT EXISTS forms(
        form_id BIGINT, run_id INTEGER, seq BIGINT, page_url VARCHAR, site VARCHAR,
        action_url VARCHAR, method VARCHAR, signature VARCHAR, searchable BOOLEAN,
        searchable_score DOUBLE, domain VARCHAR, domain_score DOUBLE, relevant BOOLEAN,
        n_fields INTEGER, text VARCHAR, html VARCHAR, found_after_pages BIGINT,
        rendered BOOLEAN, form_index INTEGER, context VARCHAR, page_title VARCHAR,
        found_at TIMESTAMP)""",
    """CREATE TABLE IF NOT EXISTS form_fields(
        form_id BIGINT, position INTEGER, name VARCHAR, type VARCHAR, label VARCHAR,
        options VARCHAR[], value VARCHAR, placeholder VARCHAR)""",
    """CREATE TABLE IF NOT EXISTS form_paths(
        form_id BIGINT, hop INTEGER, url VARCHAR, anchor VARCHAR)""",
    """CREATE TABLE IF NOT EXISTS frontier(
        run_id INTEGER, lid BIGINT, url VARCHAR, site VARCHAR, host VARCHAR,
        depth INTEGER, level INTEGER, score DOUBLE, state VARCHAR, reason VARCHAR,
        parent VARCHAR, anchor VARCHAR, around VARCHAR, parent_score DOUBLE,
        dom_terms VARCHAR, loaded BOOLEAN, added_at_page BIGINT)""",
]
_V2 = [
    """CREATE TABLE IF NOT EXISTS learning_iterations(
        run_id INTEGER, iteration INTEGER, learned_at TIMESTAMP, at_page BIGINT,
        learner VARCHAR, n_paths INTEGER, seconds DOUBLE, features VARCHAR,
        note VARCHAR)""",
    "ALTER TABLE runs ADD COLUMN IF NOT EXISTS stage_seconds VARCHAR",
]
_V3 = ["ALTER TABLE runs ADD COLUMN IF NOT EXISTS end_reason VARCHAR"]
_V4 = [
    """CREATE TABLE IF NOT EXISTS form_labels(
        form_id BIGINT, labelled_at TIMESTAMP, verdict_ok BOOLEAN, true_domain VARCHAR,
        note VARCHAR)""",
]
_V5 = [
    """CREATE TABLE IF NOT EXISTS learner_state(
        run_id INTEGER, learner VARCHAR, at_page BIGINT, saved_at TIMESTAMP, state BLOB)""",
    """CREATE TABLE IF NOT EXISTS robots(
        run_id INTEGER, origin VARCHAR, host VARCHAR, status INTEGER, body BLOB,
        final_url VARCHAR, fetched_at TIMESTAMP)""",
]
_V6 = [
    """CREATE TABLE IF NOT EXISTS warc_files(
        run_id INTEGER, shard VARCHAR, file VARCHAR, bytes BIGINT, records BIGINT,
        updated_at TIMESTAMP)""",
]
_V7 = [
    """CREATE TABLE IF NOT EXISTS probes(
        form_id BIGINT, site VARCHAR, signature VARCHAR, probed_at TIMESTAMP, n INTEGER,
        kind VARCHAR, input VARCHAR, value VARCHAR, url VARCHAR, status INTEGER,
        error VARCHAR, result_signature VARCHAR, n_items INTEGER, reported BIGINT,
        topic_score DOUBLE)""",
    """CREATE TABLE IF NOT EXISTS form_probes(
        form_id BIGINT, site VARCHAR, signature VARCHAR, probed_at TIMESTAMP,
        verdict VARCHAR, domain VARCHAR, domain_score DOUBLE, inputs VARCHAR[],
        results_estimate BIGINT, submissions INTEGER, note VARCHAR)""",
]

_V8 = [
    # what the critic read besides the form, so that ``rejudge`` can judge it again
    "ALTER TABLE forms ADD COLUMN IF NOT EXISTS page_score DOUBLE",
    "ALTER TABLE forms ADD COLUMN IF NOT EXISTS site_name VARCHAR",
    "ALTER TABLE forms ADD COLUMN IF NOT EXISTS nav VARCHAR",
    """UPDATE forms SET page_score = p.page_score FROM pages p
       WHERE p.run_id = forms.run_id AND p.url = forms.page_url""",
    "ALTER TABLE runs ADD COLUMN IF NOT EXISTS models VARCHAR",
    """CREATE TABLE IF NOT EXISTS rejudgings(
        rejudge_id INTEGER, started_at TIMESTAMP, finished_at TIMESTAMP, critic VARCHAR,
        models VARCHAR, summary VARCHAR)""",
    """CREATE TABLE IF NOT EXISTS form_verdicts(
        rejudge_id INTEGER, form_id BIGINT, searchable BOOLEAN, searchable_score DOUBLE,
        domain VARCHAR, domain_score DOUBLE, relevant BOOLEAN, prev_searchable BOOLEAN,
        prev_domain VARCHAR, prev_domain_score DOUBLE, prev_relevant BOOLEAN)""",
]

_V9 = [
    # the page topics the domain decision read, so that ``rejudge`` decides alike
    "ALTER TABLE forms ADD COLUMN IF NOT EXISTS page_topics VARCHAR",
]

#: (version, note, statements). Append only; a new version migrates older files.
MIGRATIONS: list[tuple[int, str, list[str]]] = [
    (1, "runs, pages, forms, form_fields, form_paths, frontier", _V1),
    (2, "learning_iterations; runs.stage_seconds", _V2),
    (3, "runs.end_reason (budget, exhausted, time-limit, interrupted, ...)", _V3),
    (4, "form_labels: users' labels of forms (verdict right or wrong, true domain)", _V4),
    (5, "learner_state: what each online learner learned, as of the last commit point; "
        "robots: the robots.txt answers a run fetched (a resumed run fetches none again)", _V5),
    (6, "warc_files: each WARC file's committed length (crawl --warc; exactly-once on "
        "resume)", _V6),
    (7, "probes: each submission of a probed form; form_probes: the verdict per probing "
        "(answers/static/unknown, inputs, domain, result count), by (site, signature)", _V7),
    (8, "the directory: forms.page_score/site_name/nav (what rejudge needs), runs.models "
        "(the models a run used), rejudgings + form_verdicts (verdicts of re-judgings); "
        "views form_directory and form_log (formhunter.directory)", _V8),
    (9, "forms.page_topics: the page topic scores (JSON, by domain) the domain decision "
        "read, site evidence included (rejudge judges with them)", _V9),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]

PAGE_SCHEMA = pa.schema(
    [("run_id", pa.int32()), ("seq", pa.int64()), ("url", pa.string()),
     ("final_url", pa.string()), ("site", pa.string()), ("host", pa.string()),
     ("status", pa.int32()), ("error", pa.string()), ("content_type", pa.string()),
     ("fetched_at", pa.timestamp("us")), ("depth", pa.int32()), ("on_topic", pa.bool_()),
     ("page_score", pa.float64()), ("n_links", pa.int32()), ("n_forms", pa.int32()),
     ("bytes", pa.int64()), ("elapsed", pa.float64()), ("parent_url", pa.string()),
     ("anchor", pa.string()), ("title", pa.string()), ("rendered", pa.bool_())]
)  # fmt: skip
FORM_SCHEMA = pa.schema(
    [("form_id", pa.int64()), ("run_id", pa.int32()), ("seq", pa.int64()),
     ("page_url", pa.string()), ("site", pa.string()), ("action_url", pa.string()),
     ("method", pa.string()), ("signature", pa.string()), ("searchable", pa.bool_()),
     ("searchable_score", pa.float64()), ("domain", pa.string()),
     ("domain_score", pa.float64()), ("relevant", pa.bool_()), ("n_fields", pa.int32()),
     ("text", pa.string()), ("html", pa.string()), ("found_after_pages", pa.int64()),
     ("rendered", pa.bool_()), ("form_index", pa.int32()), ("context", pa.string()),
     ("page_title", pa.string()), ("found_at", pa.timestamp("us")),
     ("page_score", pa.float64()), ("site_name", pa.string()), ("nav", pa.string()),
     ("page_topics", pa.string())]
)  # fmt: skip
FIELD_SCHEMA = pa.schema(
    [("form_id", pa.int64()), ("position", pa.int32()), ("name", pa.string()),
     ("type", pa.string()), ("label", pa.string()), ("options", pa.list_(pa.string())),
     ("value", pa.string()), ("placeholder", pa.string())]
)  # fmt: skip
PATH_SCHEMA = pa.schema(
    [("form_id", pa.int64()), ("hop", pa.int32()), ("url", pa.string()), ("anchor", pa.string())]
)

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


def _check_file(path: Path) -> bool:
    """Refuse, without DuckDB, a file that is not a DuckDB database at all; True
    for a DuckDB file (then checked by ``_check_intact``), False for an empty one.

    An empty file is left to DuckDB (``touch``-ed catalogues). A DuckDB file has
    ``DUCK`` at byte 8. The rest of the check is ``_check_intact``: the
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


def _check_intact(con: duckdb.DuckDBPyConnection, path: Path) -> None:
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


def _topics_json(verdict: Verdict) -> str | None:
    """The page topics a verdict read, as stored (exact floats), or None."""
    return json.dumps(verdict.page_topics) if verdict.page_topics else None


def now() -> datetime:
    """Naive UTC timestamp (DuckDB TIMESTAMP)."""
    return datetime.now(UTC).replace(tzinfo=None)


class RowBuffer:
    """Rows kept in memory (one tuple each), turned into one Arrow table at flush.

    Appending a tuple is the per-link/per-page cost of the crawl loop; the transpose
    into columns happens once per commit, at C speed (``zip(*rows)``).
    """

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self.width = len(schema.names)
        self.rows: list[tuple[Any, ...]] = []

    def __len__(self) -> int:
        return len(self.rows)

    def append(self, *values: Any) -> None:
        if len(values) != self.width:
            raise ValueError(f"a row of {len(values)} values for {self.width} columns")
        self.rows.append(values)

    def take(self) -> pa.Table:
        """The buffered rows as a table; the buffer is emptied."""
        rows, self.rows = self.rows, []
        columns = list(zip(*rows, strict=True)) if rows else [()] * self.width
        arrays = [pa.array(c, type=f.type) for c, f in zip(columns, self.schema, strict=True)]
        return pa.Table.from_arrays(arrays, schema=self.schema)


def insert_arrow(con: duckdb.DuckDBPyConnection, table: str, data: pa.Table) -> None:
    """Bulk insert an Arrow table whose column names match ``table``'s."""
    if data.num_rows == 0:
        return
    name = f"_ins_{table}"
    con.register(name, data)
    try:
        cols = ", ".join(data.schema.names)
        con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {name}")
    finally:
        con.unregister(name)


@dataclass(frozen=True)
class RunInfo:
    """A row of ``runs``."""

    run_id: int
    domain: str
    strategy: str
    max_pages: int
    status: str
    config: dict[str, Any]
    counters: dict[str, Any]
    seeds: list[str]


@dataclass(frozen=True)
class ResumeState:
    """What a resumed run rebuilds in memory: pages fetched, parent pointers
    (url -> (parent, anchor)) and the per-site counters of ``SiteBudget``."""

    pages: int
    parents: dict[str, tuple[str, str]]
    site_pages: dict[str, int]
    site_forms: dict[str, int]
    site_relevant: dict[str, int]
    site_since_form: dict[str, int]

    def only(self, keep: Callable[[str], bool]) -> ResumeState:
        """The same state with the per-site counters of the sites ``keep`` accepts
        (e.g. a cluster shard's); pages and parent pointers stay whole."""

        def own(d: dict[str, int]) -> dict[str, int]:
            return {k: v for k, v in d.items() if keep(k)}

        return ResumeState(self.pages, self.parents, own(self.site_pages), own(self.site_forms),
                           own(self.site_relevant), own(self.site_since_form))  # fmt: skip


Flusher = Callable[[duckdb.DuckDBPyConnection], None]


class Catalogue:
    """A catalogue file. ``read_only`` opens without migrating or writing.

    Raises CatalogueError (unreadable, locked, not a catalogue) or
    SchemaVersionError (written by a newer formhunter).
    """

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.snapshot_of: Path | None = None  # set by ``open_for_reading``
        if read_only and not self.path.exists():
            raise CatalogueError(f"no catalogue at {self.path}")
        if self.path.exists() and self.path.is_dir():
            raise CatalogueError(f"{self.path} is a directory, not a catalogue file")
        try:
            if self.path.exists() and _check_file(self.path):
                # checked on a read-only connection first: nothing may write a damaged file
                with duckdb.connect(str(self.path), read_only=True, config=DUCKDB_CONFIG) as con:
                    _check_intact(con, self.path)
            self.con = duckdb.connect(str(self.path), read_only=read_only, config=DUCKDB_CONFIG)
        except duckdb.Error as exc:
            msg = str(exc).splitlines()[0]
            if _LOCKED.search(msg):
                raise CatalogueError(
                    f"{self.path} is in use by another process (DuckDB allows one writer): {msg}"
                ) from exc
            if "corrupt" in msg.lower() or "checksum" in msg.lower():
                raise CatalogueError(
                    f"cannot open {self.path}: it is damaged ({msg}). {_DAMAGED_HINT}") from exc
            raise CatalogueError(f"cannot open {self.path} as a DuckDB catalogue: {msg}") from exc
        self._lock = threading.Lock()
        self.pages = RowBuffer(PAGE_SCHEMA)
        self.forms = RowBuffer(FORM_SCHEMA)
        self.fields = RowBuffer(FIELD_SCHEMA)
        self.paths = RowBuffer(PATH_SCHEMA)
        self._learning: list[tuple[Any, ...]] = []
        self._robots: list[tuple[Any, ...]] = []
        self._probes: list[tuple[Any, ...]] = []
        self._form_probes: list[tuple[Any, ...]] = []
        self._run_updates: dict[int, dict[str, Any]] = {}
        #: later verdicts of forms already buffered or stored (``revise_form``)
        self._revised: list[tuple[Any, ...]] = []
        self._flushers: list[Flusher] = []
        self._form_keys: dict[int, set[tuple[str, str]]] = {}
        self.commits = 0
        try:
            self.version = self._check_version()
        except Exception:
            self.con.close()
            raise
        self._next_form_id = self._scalar("SELECT coalesce(max(form_id), 0) + 1 FROM forms")

    # -- schema -----------------------------------------------------------------

    def _scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = self.con.execute(sql, list(params)).fetchall()
        return rows[0][0] if rows else None

    def _tables(self) -> set[str]:
        rows = self.con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()
        return {r[0] for r in rows}

    def _check_version(self) -> int:
        tables = self._tables()
        if "schema_version" not in tables:
            if tables:
                raise CatalogueError(
                    f"{self.path} is a DuckDB file but not a formhunter catalogue "
                    f"(tables: {', '.join(sorted(tables))}); use another --db"
                )
            if self.read_only:
                raise CatalogueError(f"{self.path} is empty, not a formhunter catalogue")
            version = 0
        else:
            version = int(self._scalar("SELECT coalesce(max(version), 0) FROM schema_version"))
        if version > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"{self.path} has catalogue schema version {version}, but this formhunter "
                f"knows versions up to {SCHEMA_VERSION}: upgrade formhunter, or use another --db"
            )
        if version < SCHEMA_VERSION and not self.read_only:
            migrate(self.con, SCHEMA_VERSION)
            version = SCHEMA_VERSION
        if not self.read_only:
            directory.refresh_views(self.con)
        return version

    # -- runs -------------------------------------------------------------------

    def new_run(self, *, domain: str, strategy: str, max_pages: int, config: dict[str, Any],
                seeds: Sequence[str]) -> int:  # fmt: skip
        """Create a run (committed at once) and return its id."""
        with self._lock:
            run_id = int(self._scalar("SELECT coalesce(max(run_id), 0) + 1 FROM runs"))
            self.con.execute(
                "INSERT INTO runs (run_id, started_at, domain, strategy, max_pages, config,"
                " status, errors, counters, seeds) VALUES (?, ?, ?, ?, ?, ?, 'running', '{}',"
                " '{}', ?)",
                [run_id, now(), domain, strategy, max_pages, json.dumps(config, default=str),
                 json.dumps(list(seeds))],
            )  # fmt: skip
        return run_id

    def open_run(self, *, domain: str, strategy: str, max_pages: int, config: dict[str, Any],
                 seeds: Sequence[str], resume: bool) -> tuple[int, RunInfo | None]:  # fmt: skip
        """(run id, the run resumed or None): a new run, or with ``resume`` the latest
        one, which must crawl the same domain with the same strategy (else UsageError);
        a resumed run takes ``max_pages`` and ``config`` as its own."""
        if not resume:
            return self.new_run(domain=domain, strategy=strategy, max_pages=max_pages,
                                config=config, seeds=seeds), None  # fmt: skip
        run = self.run()
        if run is None:
            raise UsageError(f"--resume: {self.path} holds no run to resume")
        if run.domain != domain or run.strategy != strategy:
            raise UsageError(
                f"--resume: run {run.run_id} crawls domain {run.domain!r} with strategy "
                f"{run.strategy!r}, not {domain!r}/{strategy!r}"
            )
        # the settings of this session are the run's from now on: a resume killed at
        # start-up, then resumed again, goes on with them (its budget included)
        self.update_run(run.run_id, status="running", max_pages=max_pages, config=config,
                        finished_at=None)  # fmt: skip
        return run.run_id, run

    def run(self, run_id: int | None = None) -> RunInfo | None:
        """The run ``run_id``, or the latest run; None when there is none."""
        sql = ("SELECT run_id, domain, strategy, max_pages, status, config, counters, seeds "
               "FROM runs ")  # fmt: skip
        rows = (
            self.con.execute(sql + "WHERE run_id = ?", [run_id]).fetchall()
            if run_id is not None
            else self.con.execute(sql + "ORDER BY run_id DESC LIMIT 1").fetchall()
        )
        if not rows:
            return None
        row = rows[0]
        return RunInfo(int(row[0]), row[1], row[2], int(row[3] or 0), row[4] or "",
                       json.loads(row[5] or "{}"), json.loads(row[6] or "{}"),
                       json.loads(row[7] or "[]"))  # fmt: skip

    def resume_state(self, run_id: int) -> ResumeState:
        """The in-memory state of run ``run_id`` as of its last commit."""
        con = self.con
        parents = {url: (parent or "", anchor or "") for url, parent, anchor in con.execute(
            "SELECT url, parent_url, anchor FROM pages WHERE run_id = ?", [run_id]).fetchall()}
        pages = int(con.execute("SELECT count(*) FROM pages WHERE run_id = ?",
                                [run_id]).fetchall()[0][0])  # fmt: skip
        site_pages = {site: int(n) for site, n in con.execute(
            "SELECT site, count(*) FROM pages WHERE run_id = ? GROUP BY site", [run_id]
        ).fetchall()}  # fmt: skip
        forms: dict[str, int] = {}
        relevant: dict[str, int] = {}
        for site, n, r in con.execute(
            "SELECT site, count(*), count(*) FILTER (WHERE relevant) FROM forms"
            " WHERE run_id = ? AND searchable GROUP BY site", [run_id]
        ).fetchall():  # fmt: skip
            forms[site], relevant[site] = int(n), int(r)
        since = {site: int(n) for site, n in con.execute(
            "SELECT p.site, count(*) FROM pages p WHERE p.run_id = ? AND p.seq > coalesce("
            " (SELECT max(f.seq) FROM forms f WHERE f.run_id = p.run_id AND f.site = p.site"
            "  AND f.searchable), 0) GROUP BY p.site", [run_id]
        ).fetchall()}  # fmt: skip
        return ResumeState(pages, parents, site_pages, forms, relevant, since)

    def learner_states(self, run_id: int) -> dict[str, bytes]:
        """The learners' states of run ``run_id`` as of its last commit, by learner name."""
        if "learner_state" not in self._tables():  # a read-only file of an older schema
            return {}
        rows = self.con.execute(
            "SELECT learner, state FROM learner_state WHERE run_id = ?", [run_id]).fetchall()
        return {name: bytes(state) for name, state in rows}

    def warc_files(self, run_id: int, shard: str = "") -> list[WarcFile]:
        """The committed WARC files of run ``run_id`` (and cluster shard ``shard``)."""
        if "warc_files" not in self._tables():
            return []
        rows = self.con.execute(
            "SELECT file, bytes, records FROM warc_files WHERE run_id = ? AND shard = ?"
            " ORDER BY file", [run_id, shard]).fetchall()  # fmt: skip
        return [WarcFile(f, int(b), int(r)) for f, b, r in rows]

    def add_robots(self, run_id: int,
                   answers: Sequence[tuple[str, str, int, bytes, str, float]]) -> None:  # fmt: skip
        """Buffer robots.txt answers (``RobotsCache.take_fetched``) for the next commit."""
        with self._lock:
            self._robots += [(run_id, origin, host, status, body, final,
                              datetime.fromtimestamp(at, UTC).replace(tzinfo=None))
                             for origin, host, status, body, final, at in answers]  # fmt: skip

    def robots(self, run_id: int) -> list[tuple[str, str, int, bytes, float]]:
        """The latest robots.txt answer of each origin of run ``run_id``: (origin, host,
        status, body, seconds since it was fetched)."""
        if "robots" not in self._tables():  # a read-only file of an older schema
            return []
        rows = self.con.execute(
            "SELECT origin, arg_max(host, fetched_at), arg_max(status, fetched_at),"
            " arg_max(body, fetched_at), max(fetched_at) FROM robots WHERE run_id = ?"
            " GROUP BY origin", [run_id]).fetchall()  # fmt: skip
        t = now()
        return [(o, h, int(s), bytes(b), (t - at).total_seconds()) for o, h, s, b, at in rows]

    def update_run(self, run_id: int, **fields: Any) -> None:
        """Set columns of ``runs`` at the next commit (dicts/lists become JSON)."""
        with self._lock:
            self._run_updates.setdefault(run_id, {}).update(fields)

    # -- buffered writes --------------------------------------------------------

    def add_flusher(self, flusher: Flusher) -> None:
        """Run ``flusher(con)`` inside every commit's transaction (before pages/forms)."""
        self._flushers.append(flusher)

    def add_page(self, run_id: int, seq: int, page: Page | None, *, url: str, site: str,
                 host: str, status: int, error: str, content_type: str, depth: int,
                 page_score: float | None, on_topic: bool | None, n_bytes: int,
                 elapsed: float, parent_url: str, anchor: str,
                 final_url: str = "") -> None:  # fmt: skip
        """Buffer one fetched page (``page`` None when it was not parsed)."""
        self.pages.append(
            run_id, seq, url, strip_userinfo(final_url or (page.final_url if page else url)),
            site, host,
            status, error, content_type, now(), depth, on_topic, page_score,
            len(page.links) if page else 0, len(page.forms) if page else 0, n_bytes, elapsed,
            parent_url, anchor, page.title[:500] if page else "",
            page.rendered if page else False,
        )  # fmt: skip

    def _keys(self, run_id: int) -> set[tuple[str, str]]:
        keys = self._form_keys.get(run_id)
        if keys is None:
            rows = self.con.execute(
                "SELECT site, signature FROM forms WHERE run_id = ?", [run_id]
            ).fetchall()
            keys = self._form_keys[run_id] = {(r[0], r[1]) for r in rows}
        return keys

    def is_new_form(self, run_id: int, site: str, signature: str) -> bool:
        return (site, signature) not in self._keys(run_id)

    def add_form(
        self, run_id: int, seq: int, page: Page, form: Form, verdict: Verdict, *,
        found_after_pages: int, path: Sequence[tuple[str, str]], signature: str = "",
        page_score: float | None = None,
    ) -> int | None:  # fmt: skip
        """Buffer a form with its fields and path; None if the site already has it.
        ``signature``: ``form.signature`` when the caller computed it already;
        ``page_score``: the page classifier's Pr(on topic) of its page."""
        sig = signature or form.signature
        keys = self._keys(run_id)
        if (page.site, sig) in keys:
            return None
        keys.add((page.site, sig))
        fid = self._next_form_id
        self._next_form_id += 1
        self.forms.append(
            fid, run_id, seq, page.url, page.site, strip_userinfo(form.action),
            form.method.upper(), sig,
            verdict.searchable, verdict.searchable_score, verdict.domain, verdict.domain_score,
            verdict.relevant, len(form.fields), form.text, form.html, found_after_pages,
            form.rendered, form.index, form.context, page.title[:500], now(),
            page_score, page.site_name[:500], page.nav[:2000], _topics_json(verdict),
        )  # fmt: skip
        for i, f in enumerate(form.fields):
            self.fields.append(fid, i, f.name, f.type, f.label, list(f.options), f.value,
                               f.placeholder)  # fmt: skip
        for hop, (url, anchor) in enumerate(path):
            self.paths.append(fid, hop, url, anchor)
        return fid

    def add_probe(self, form_id: int, site: str, signature: str,
                  submissions: Sequence[dict[str, Any]],
                  summary: dict[str, Any]) -> None:  # fmt: skip
        """Buffer one probing of a form for the next commit: its submissions (dicts with
        the ``probes`` columns after ``probed_at``) and its ``form_probes`` summary
        (verdict, domain, domain_score, inputs, results_estimate, submissions, note)."""
        at = now()
        with self._lock:
            for n, sub in enumerate(submissions, 1):
                self._probes.append((form_id, site, signature, at, n, sub["kind"], sub["input"],
                                     sub["value"], strip_userinfo(sub["url"]), sub["status"],
                                     sub["error"], sub["result_signature"], sub["n_items"],
                                     sub["reported"], sub["topic_score"]))  # fmt: skip
            self._form_probes.append((form_id, site, signature, at, summary["verdict"],
                                      summary["domain"], summary["domain_score"],
                                      list(summary["inputs"]), summary["results_estimate"],
                                      summary["submissions"], summary["note"]))  # fmt: skip

    def probed(self) -> set[tuple[str, str]]:
        """The (site, signature) entries probed already (committed)."""
        if "form_probes" not in self._tables():
            return set()
        return {(a, b) for a, b in self.con.execute(
            "SELECT DISTINCT site, signature FROM form_probes").fetchall()}  # fmt: skip

    def revise_form(self, run_id: int, site: str, signature: str, verdict: Verdict) -> None:
        """Buffer a later verdict of a form this run already has (the site's evidence made it
        relevant): its domain, domain score and relevant flag change at the next commit."""
        with self._lock:
            self._revised.append((verdict.domain, verdict.domain_score, verdict.relevant,
                                  _topics_json(verdict), run_id, site, signature))  # fmt: skip

    def record_learning(self, run_id: int, *, at_page: int, n_paths: int, seconds: float,
                        features: dict[str, Any], learner: str = "",
                        note: str = "") -> None:  # fmt: skip
        """Buffer one learning iteration (``features``: e.g. {space: [terms]}), JSON-encoded."""
        with self._lock:
            done = self._scalar(
                "SELECT count(*) FROM learning_iterations WHERE run_id = ?", [run_id]
            )
            it = sum(1 for r in self._learning if r[0] == run_id) + int(done)
            self._learning.append((run_id, it + 1, now(), at_page, learner, n_paths, seconds,
                                   json.dumps(features, default=str), note))  # fmt: skip

    def pending(self) -> int:
        """Rows waiting for the next commit (pages + forms + probed forms)."""
        return len(self.pages) + len(self.forms) + len(self._form_probes)

    def commit(self) -> None:
        """Write every buffered row in one transaction (a commit point)."""
        if self.read_only:
            return
        with self._lock:
            con = self.con
            con.execute("BEGIN TRANSACTION")
            try:
                for flush in self._flushers:
                    flush(con)
                insert_arrow(con, "pages", self.pages.take())
                insert_arrow(con, "forms", self.forms.take())
                insert_arrow(con, "form_fields", self.fields.take())
                insert_arrow(con, "form_paths", self.paths.take())
                if self._revised:
                    con.executemany(
                        "UPDATE forms SET domain = ?, domain_score = ?, relevant = ?,"
                        " page_topics = coalesce(?, page_topics)"
                        " WHERE run_id = ? AND site = ? AND signature = ?", self._revised)
                    self._revised = []
                if self._learning:
                    con.executemany(
                        "INSERT INTO learning_iterations (run_id, iteration, learned_at, at_page,"
                        " learner, n_paths, seconds, features, note)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        self._learning,
                    )
                    self._learning = []
                if self._robots:
                    con.executemany("INSERT INTO robots VALUES (?, ?, ?, ?, ?, ?, ?)",
                                    self._robots)  # fmt: skip
                    self._robots = []
                if self._probes:
                    con.executemany(f"INSERT INTO probes VALUES ({', '.join('?' * 15)})",
                                    self._probes)  # fmt: skip
                    self._probes = []
                if self._form_probes:
                    con.executemany(f"INSERT INTO form_probes VALUES ({', '.join('?' * 11)})",
                                    self._form_probes)  # fmt: skip
                    self._form_probes = []
                for run_id, upd in self._run_updates.items():
                    sets = ", ".join(f"{k} = ?" for k in upd)
                    vals = [json.dumps(v, default=str) if isinstance(v, dict | list) else v
                            for v in upd.values()]  # fmt: skip
                    con.execute(f"UPDATE runs SET {sets} WHERE run_id = ?", [*vals, run_id])
                self._run_updates = {}
                killpoints.reached("commit")
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
            self.commits += 1

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Catalogue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ----------------------------------------------------------------

    def forms_table(self, **filters: Any) -> pa.Table:
        """The directory (``all_rows``: the log) with filters: ``directory.select_forms``."""
        return directory.forms_table(self.con, **filters)

    def export_forms(self, fmt: str, out: str | Path, **filters: Any) -> int:
        """``directory.export_forms``: csv, json or parquet, the directory by default."""
        return directory.export_forms(self.con, fmt, out, **filters)

    def stats(self, run_id: int) -> dict[str, Any]:
        """Pages, distinct (searchable, relevant) forms and harvest rates of a run."""
        pages = int(self._scalar("SELECT count(*) FROM pages WHERE run_id = ?", [run_id]))
        row = self.con.execute(
            "SELECT count(*), count(*) FILTER (WHERE searchable),"
            " count(*) FILTER (WHERE relevant) FROM forms WHERE run_id = ?",
            [run_id],
        ).fetchall()[0]
        forms, searchable, relevant = (int(x) for x in row)
        return {
            "pages": pages, "forms": forms, "searchable_forms": searchable,
            "relevant_forms": relevant,
            "harvest_relevant": relevant / pages if pages else 0.0,
            "harvest_searchable": searchable / pages if pages else 0.0,
        }  # fmt: skip


def write_learner_states(con: duckdb.DuckDBPyConnection, run_id: int, at_page: int,
                         states: Sequence[tuple[str, bytes]]) -> None:  # fmt: skip
    """Replace the saved (learner name, state) rows of a run; call it inside a commit's
    transaction (a ``Catalogue`` flusher), so that states and rows agree."""
    con.execute("DELETE FROM learner_state WHERE run_id = ?", [run_id])
    if states:
        con.executemany("INSERT INTO learner_state VALUES (?, ?, ?, ?, ?)",
                        [(run_id, name, at_page, now(), state) for name, state in states])


#: tables a snapshot copies empty: the crawl's own working state, not what readers show
_SNAPSHOT_EMPTY = ("frontier", "learner_state", "robots")


def snapshot_path(path: str | Path) -> Path:
    """Where the crawl writing ``path`` keeps its read snapshot (``Catalogue.snapshot``)."""
    p = Path(path)
    return p.with_name(p.name + ".snapshot")


def write_snapshot(con: duckdb.DuckDBPyConnection, path: str | Path) -> float:
    """Copy the catalogue behind ``con`` to ``snapshot_path(path)`` (atomically replaced;
    the frontier, learner states and robots.txt answers copied empty), for readers
    while a crawl holds the file's write lock. Returns the seconds it took."""
    import os
    import time

    t0 = time.perf_counter()
    final = snapshot_path(path)
    tmp = final.with_name(f"{final.name}.tmp{os.getpid()}")
    for p in (tmp, tmp.with_name(tmp.name + ".wal")):
        p.unlink(missing_ok=True)
    db = con.execute("SELECT current_database()").fetchall()[0][0]
    tables = [r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        " AND table_catalog = ? AND table_type = 'BASE TABLE' ORDER BY table_name",
        [db]).fetchall()]  # fmt: skip
    views = [r[0] for r in con.execute(
        "SELECT sql FROM duckdb_views() WHERE NOT internal AND database_name = ?"
        " AND schema_name = 'main'", [db]).fetchall()]  # fmt: skip
    con.execute(f"ATTACH '{tmp.as_posix().replace(chr(39), chr(39) * 2)}' AS fh_snapshot")
    try:
        for t in tables:
            limit = " LIMIT 0" if t in _SNAPSHOT_EMPTY else ""
            con.execute(f'CREATE TABLE fh_snapshot."{t}" AS SELECT * FROM "{db}".main."{t}"'
                        f"{limit}")  # fmt: skip
        con.execute("USE fh_snapshot")
        try:
            for sql in views:
                con.execute(sql)
        finally:
            con.execute(f'USE "{db}"')
    finally:
        con.execute("DETACH fh_snapshot")
    os.replace(tmp, final)
    return time.perf_counter() - t0


def open_for_reading(path: str | Path) -> Catalogue:
    """``Catalogue(path, read_only=True)``; while a crawl holds the file's write lock,
    the snapshot it keeps fresh (``write_snapshot``) instead, with ``snapshot_of`` set
    to ``path``."""
    try:
        return Catalogue(path, read_only=True)
    except CatalogueError as exc:
        snap = snapshot_path(path)
        if "in use" not in str(exc) or not snap.is_file():
            raise
    cat = Catalogue(snap, read_only=True)
    cat.snapshot_of = Path(path)
    return cat


def migrate(con: duckdb.DuckDBPyConnection, upto: int) -> None:
    """Apply the migrations after the file's version, up to ``upto``, one transaction each."""
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_version(version INTEGER, applied_at TIMESTAMP,"
        " note VARCHAR)"
    )
    rows = con.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchall()
    current = int(rows[0][0])
    for version, note, statements in MIGRATIONS:
        if current < version <= upto:
            con.execute("BEGIN TRANSACTION")
            try:
                for stmt in statements:
                    con.execute(stmt)
                con.execute("INSERT INTO schema_version VALUES (?, ?, ?)", [version, now(), note])
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
            log.info("catalogue migrated to schema version %d (%s)", version, note)


# -- labels (users' corrections of verdicts) -----------------------------------

def has_labels_table(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the file has ``form_labels`` (schema 4; a read-only older file has not)."""
    rows = con.execute(
        "SELECT count(*) FROM information_schema.tables"
        " WHERE table_schema = 'main' AND table_name = 'form_labels'"
    ).fetchall()
    return bool(rows[0][0])


def add_label(con: duckdb.DuckDBPyConnection, form_id: int, *, verdict_ok: bool,
              true_domain: str = "", note: str = "") -> dict[str, Any]:  # fmt: skip
    """Record a user's label of form ``form_id`` (its own short transaction).

    ``verdict_ok``: the stored verdict was right. ``true_domain``: the form's real
    domain (a domain name, ``OTHER_DOMAIN`` or ``NOT_SEARCHABLE``); empty with a
    right verdict means the verdict's own domain. Labels are appended; the latest
    label of a form counts. UsageError for an unknown form or a wrong verdict
    without a domain. Returns the stored label.
    """
    rows = con.execute(
        "SELECT searchable, domain FROM forms WHERE form_id = ?", [int(form_id)]
    ).fetchall()
    if not rows:
        raise UsageError(f"no form {form_id} in the catalogue")
    searchable, domain = rows[0]
    true_domain = true_domain.strip().lower()
    if not true_domain:
        if not verdict_ok:
            raise UsageError("a wrong verdict needs the form's true domain")
        true_domain = (domain or OTHER_DOMAIN) if searchable else NOT_SEARCHABLE
    if len(true_domain) > 64 or len(note) > 2000:
        raise UsageError("label too long (domain: 64 characters, note: 2000)")
    label = {"form_id": int(form_id), "labelled_at": now(), "verdict_ok": bool(verdict_ok),
             "true_domain": true_domain, "note": note}  # fmt: skip
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute("INSERT INTO form_labels VALUES (?, ?, ?, ?, ?)", list(label.values()))
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return label


def read_labels(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The latest label of each labelled form (identity: site, signature), with the
    directory's row of that form, newest first."""
    if not has_labels_table(con):
        return []
    sql = (f"SELECT d.label_form_id AS form_id, d.site, d.signature, d.labelled_at,"
           f" d.verdict_ok, d.true_domain, d.note, f.form_id AS latest_form_id, f.copies,"
           f" f.runs, f.page_url, f.action_url, f.verdict_searchable AS searchable,"
           f" f.verdict_domain AS domain, f.domain_score, f.verdict_relevant AS relevant,"
           f" f.judged_by FROM ({directory.labels_sql(directory.Schema(con))}) d"
           f" JOIN ({directory.directory_sql(directory.Schema(con))}) f"
           " USING (site, signature) ORDER BY d.labelled_at DESC, f.form_id")  # fmt: skip
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
