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
``SchemaVersionError``; older versions are migrated forward on open (the tables and
their migrations: ``formhunter.schema``; users' labels: ``formhunter.labels``).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from formhunter import directory, killpoints
from formhunter.dbfile import connect
from formhunter.exceptions import CatalogueError, SchemaVersionError, UsageError
from formhunter.model import Form, Page, Verdict
from formhunter.schema import (
    FIELD_SCHEMA,
    FORM_SCHEMA,
    PAGE_SCHEMA,
    PATH_SCHEMA,
    SCHEMA_VERSION,
    RowBuffer,
    insert_arrow,
    migrate,
    now,
)
from formhunter.urls import strip_userinfo
from formhunter.warc import WarcFile

log = logging.getLogger(__name__)

def _topics_json(verdict: Verdict) -> str | None:
    """The page topics a verdict read, as stored (exact floats), or None."""
    return json.dumps(verdict.page_topics) if verdict.page_topics else None


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
    """A catalogue file. ``read_only`` opens without migrating or writing; ``memory_mb``:
    DuckDB's memory limit for the connection (a crawl's: ``[crawl] db_memory_mb``; 0, for
    the short reads of other commands: DuckDB's own).

    Raises CatalogueError (unreadable, locked, not a catalogue) or
    SchemaVersionError (written by a newer formhunter).
    """

    def __init__(self, path: str | Path, *, read_only: bool = False, memory_mb: int = 0
                 ) -> None:  # fmt: skip
        self.path = Path(path)
        self.read_only = read_only
        self.snapshot_of: Path | None = None  # set by ``open_for_reading``
        if read_only and not self.path.exists():
            raise CatalogueError(f"no catalogue at {self.path}")
        if self.path.exists() and self.path.is_dir():
            raise CatalogueError(f"{self.path} is a directory, not a catalogue file")
        self.con = connect(self.path, read_only=read_only, memory_mb=memory_mb)
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
