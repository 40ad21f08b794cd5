"""The catalogue's tables and how rows reach them: the schema ``MIGRATIONS`` (append only;
a new version migrates older files forward, ``migrate``), the Arrow schemas of the rows
the catalogue buffers, ``RowBuffer`` (rows kept as tuples, one Arrow table at a commit)
and ``insert_arrow`` (a bulk insert). ``formhunter.catalogue`` opens, checks and writes
the file with them.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import duckdb
import pyarrow as pa

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
