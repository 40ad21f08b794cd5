"""The persistent frontier: every discovered link of a run, in the catalogue's DuckDB.

One row per (run, url): ``lid`` (discovery order), url, site, host, depth, level,
score, state (queued / fetched / failed / skipped / reserve), reason, parent, anchor,
around, parent_score, dom_terms, loaded (taken into memory), added_at_page.

A ``reserve`` row is a link the follow policy did not follow when it was found
(an outlink of an off-topic page): it is not loaded until ``open_reserve`` turns
the whole reserve into queued links; found again by a followed page, it is
re-added as queued (its reserve row dropped, so a URL keeps one row).

New links and state changes are buffered. ``flush`` writes both inside the catalogue's
commit (one transaction with the pages and forms they belong to). Before a read that
needs every link found so far (``load``, ``rerank``, ``open_reserve``,
``requeue_skipped``) the store writes its buffered new links itself (``sync``); state
changes wait for the commit, so a page is never marked fetched in the file before its
row is there, and those reads account for the changes still buffered. Nothing here calls
the engine: the store flushes itself, the catalogue's commit flushes the rest.
``load`` takes the best not-yet-loaded queued links of each level (a quota per
level, so links of delayed benefit get their turn); ``rerank`` re-scores every
queued link in one transaction, a chunk of lids at a time (read, scored, written:
memory is bounded by the chunk), in batches: from the token ids ``tokens``
(``frontier.tokens.LinkTokens``) keeps in memory when the scorer reads token ids
(``LinkScorer.token_spaces``; links met for the first time are tokenised then, once,
in the spaces that scorer reads),
else through Arrow with the scorer's columnar ``score_frame`` on the links' text; the
new levels and scores are written by row id. The route policy's links then go first
(``interfaces.RoutesFirst``): the store keeps each link's route bonus (``route_bonus``,
computed from its text once), so the token path needs no text for it either.
``insert_queued`` fills a run's frontier in bulk from an Arrow table of links
(benchmarks, imports).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator, Sequence
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from classifiers.link_tokens import SPACES
from formhunter.frontier.tokens import LinkTokens
from formhunter.interfaces import LinkScorer, RoutesFirst
from formhunter.model import Entry, LinkRecord
from formhunter.schema import RowBuffer, insert_arrow
from formhunter.urls import host_of, site_of

log = logging.getLogger(__name__)

FRONTIER_SCHEMA = pa.schema(
    [("run_id", pa.int32()), ("lid", pa.int64()), ("url", pa.string()), ("site", pa.string()),
     ("host", pa.string()), ("depth", pa.int32()), ("level", pa.int32()),
     ("score", pa.float64()), ("state", pa.string()), ("reason", pa.string()),
     ("parent", pa.string()), ("anchor", pa.string()), ("around", pa.string()),
     ("parent_score", pa.float64()), ("dom_terms", pa.string()), ("loaded", pa.bool_()),
     ("added_at_page", pa.int64())]
)  # fmt: skip
_UPDATE_SCHEMA = pa.schema([("lid", pa.int64()), ("state", pa.string()), ("reason", pa.string())])

STATES = ("queued", "fetched", "failed", "skipped", "reserve")

Scored = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""One re-ranked batch: lids, row ids, in reserve, the scorer's levels and scores."""
Where = tuple[str, list[Any]]
"""A WHERE clause on the frontier table and its parameters."""


def level_of(levels: np.ndarray, scores: np.ndarray, n_levels: int) -> np.ndarray:
    """Scorer levels clipped into the frontier: negative levels or NaN scores go to
    the last level (unscored)."""
    lv = np.asarray(levels, dtype=np.int64).copy()
    sc = np.asarray(scores, dtype=np.float64)
    unscored = (lv < 0) | np.isnan(sc)
    lv = np.clip(lv, 0, n_levels - 2 if n_levels > 1 else 0)
    lv[unscored] = n_levels - 1
    return lv


def insert_queued(con: duckdb.DuckDBPyConnection, run_id: int, links: pa.Table, *,
                  first_lid: int = 1) -> int:  # fmt: skip
    """Bulk insert ``links`` as queued, unscored frontier rows of run ``run_id``.

    ``links`` has ``url`` and ``site`` columns and optionally ``host`` (default:
    the URL's host), ``depth``, ``parent``, ``anchor``, ``around``,
    ``parent_score`` and ``dom_terms`` (defaults 0, "" and 0.0); other columns
    (e.g. a ``lid``) are ignored. The rows get lids ``first_lid``, ``first_lid +
    1``, ... in order, level 0 and no score (a re-rank scores them). The URLs
    must be new to the run, and no ``FrontierStore`` of the run may be open (it
    reads the seen URLs and the next lid when it opens). Returns the next free lid.
    """
    k = links.num_rows
    names = set(links.column_names)

    def col(name: str, default: Any, type_: pa.DataType) -> pa.Array | pa.ChunkedArray:
        if name in names:
            return links.column(name).cast(type_)
        return pa.repeat(pa.scalar(default, type_), k)

    if "host" in names:
        host: pa.Array | pa.ChunkedArray = links.column("host").cast(pa.string())
    else:
        host = pa.array([host_of(u) for u in links.column("url").to_pylist()], pa.string())
    table = pa.table({
        "run_id": pa.repeat(pa.scalar(run_id, pa.int32()), k),
        "lid": pa.array(np.arange(first_lid, first_lid + k, dtype=np.int64)),
        "url": links.column("url").cast(pa.string()),
        "site": links.column("site").cast(pa.string()), "host": host,
        "depth": col("depth", 0, pa.int32()),
        "level": pa.repeat(pa.scalar(0, pa.int32()), k), "score": pa.nulls(k, pa.float64()),
        "state": pa.repeat(pa.scalar("queued", pa.string()), k),
        "reason": pa.repeat(pa.scalar("", pa.string()), k),
        "parent": col("parent", "", pa.string()), "anchor": col("anchor", "", pa.string()),
        "around": col("around", "", pa.string()),
        "parent_score": col("parent_score", 0.0, pa.float64()),
        "dom_terms": col("dom_terms", "", pa.string()),
        "loaded": pa.repeat(pa.scalar(False, pa.bool_()), k),
        "added_at_page": pa.repeat(pa.scalar(0, pa.int64()), k),
    }, schema=FRONTIER_SCHEMA)  # fmt: skip
    insert_arrow(con, "frontier", table)
    return first_lid + k


class FrontierStore:
    """The persistent frontier of one run on a DuckDB connection (the catalogue's).

    ``seen``: every URL the store knows; ``reserved``: url -> lid of the links in
    reserve; ``skip_level``: the level skipped links are stored at (the selector's last,
    set by it)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, run_id: int) -> None:
        self.con = con
        self.run_id = run_id
        self.pending = RowBuffer(FRONTIER_SCHEMA)
        self._updates = RowBuffer(_UPDATE_SCHEMA)
        self.skip_level = 0
        self.seen: set[str] = set()
        self.reserved: dict[str, int] = {}  # url -> lid of the rows in reserve
        self._dropped: list[int] = []  # lids of reserve rows re-added as queued
        self.next_lid = 1
        self.n_unloaded = 0
        self.last_rerank_seconds = 0.0
        self.last_rerank_tokens = False  # whether the last re-rank scored from token ids
        self.tokens = LinkTokens()
        # lid -> route bonus (``RoutesFirst.bonus``; NaN: not computed yet)
        self.route_bonus = np.full(0, np.nan, np.float32)
        self._open()

    def _open(self) -> None:
        """Load what a resumed run knows: seen URLs, next lid; reset 'loaded' marks."""
        rows = self.con.sql(
            "SELECT url FROM frontier WHERE run_id = ?", params=[self.run_id]
        ).to_arrow_table()
        self.seen = set(rows.column(0).to_pylist())
        row = self.con.execute(
            "SELECT coalesce(max(lid), 0) + 1 FROM frontier WHERE run_id = ?", [self.run_id]
        ).fetchall()[0]
        self.next_lid = int(row[0])
        if self.seen:
            self.con.execute(
                "UPDATE frontier SET loaded = false WHERE run_id = ? AND loaded", [self.run_id]
            )
        self.n_unloaded = self.count("queued")
        rows = self.con.execute(
            "SELECT url, lid FROM frontier WHERE run_id = ? AND state = 'reserve'", [self.run_id]
        ).fetchall()
        self.reserved = {r[0]: int(r[1]) for r in rows}

    @property
    def n_reserve(self) -> int:
        """Links in reserve (flushed or not)."""
        return len(self.reserved)

    def in_reserve(self, url: str) -> bool:
        """Whether ``url`` waits in reserve (a followed page may queue it after all)."""
        return url in self.reserved

    def count(self, state: str | None = None) -> int:
        """Stored rows of this run (flushed only), optionally in one state."""
        sql = "SELECT count(*) FROM frontier WHERE run_id = ?"
        params: list[Any] = [self.run_id]
        if state:
            sql += " AND state = ?"
            params.append(state)
        return int(self.con.execute(sql, params).fetchall()[0][0])

    def states(self) -> dict[str, int]:
        rows = self.con.execute(
            "SELECT state, count(*) FROM frontier WHERE run_id = ? GROUP BY state", [self.run_id]
        ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    # -- writes -----------------------------------------------------------------

    def add(self, rec: LinkRecord, host: str, level: int, score: float, *,
            state: str = "queued", reason: str = "", at_page: int = 0,
            loaded: bool = False) -> int:  # fmt: skip
        """Buffer a new link (the caller checked ``rec.url not in seen``, or that it is
        in reserve and now queued: its reserve row is dropped); its lid. ``loaded``: a
        queued link the selector holds in memory already (not given by ``load``)."""
        lid = self.next_lid
        self.next_lid += 1
        self.seen.add(rec.url)
        old = self.reserved.pop(rec.url, None)
        if old is not None:
            self._dropped.append(old)
        if state == "queued" and not loaded:
            self.n_unloaded += 1
        elif state == "reserve":
            self.reserved[rec.url] = lid
        self.pending.append(
            self.run_id, lid, rec.url, rec.site, host, rec.depth, level,
            None if math.isnan(score) else score, state, reason, rec.parent_url, rec.anchor,
            rec.around, rec.parent_score, rec.dom_terms, loaded, at_page,
        )  # fmt: skip
        return lid

    def add_skipped(self, rec: LinkRecord, host: str, reason: str, *, at_page: int = 0) -> None:
        """A link that will not be fetched (trap limit, site closed, policy), unless known."""
        if rec.url not in self.seen:
            self.add(rec, host, self.skip_level, math.nan, state="skipped", reason=reason,
                     at_page=at_page)  # fmt: skip

    def add_redirect_target(self, url: str, depth: int, *, at_page: int = 0) -> bool:
        """Where a fetched link redirected: stored as fetched, so it is not fetched again.
        False if already known."""
        if url in self.seen:
            return False
        self.add(LinkRecord(url, site_of(url), depth), host_of(url), 0, math.nan,
                 state="fetched", reason="redirect-target", at_page=at_page)  # fmt: skip
        return True

    def mark(self, lid: int, state: str, reason: str = "") -> None:
        """Buffer a state change of a stored (loaded) link."""
        self._updates.append(lid, state, reason)

    def sync(self) -> None:
        """Write the buffered new links (and drop the reserve rows they replace) now, for
        a read; state changes stay buffered for the catalogue's commit (module doc)."""
        self._write_new(self.con)

    def flush(self, con: duckdb.DuckDBPyConnection) -> None:
        """Write buffered links and state changes (called inside the catalogue's commit)."""
        self._write_new(con)
        if len(self._updates):
            self._write_updates(con, self._updates.take())

    def _write_new(self, con: duckdb.DuckDBPyConnection) -> tuple[pa.Table, list[int]]:
        """Insert the buffered new links, delete the reserve rows they replaced; both."""
        new = self.pending.take()
        insert_arrow(con, "frontier", new)
        dropped, self._dropped = self._dropped, []
        if dropped:
            con.register("_fr_drop", pa.table({"lid": pa.array(dropped, type=pa.int64())}))
            try:
                con.execute("DELETE FROM frontier WHERE run_id = ? AND lid IN"
                            " (SELECT lid FROM _fr_drop)", [self.run_id])  # fmt: skip
            finally:
                con.unregister("_fr_drop")
        return new, dropped

    def _write_updates(self, con: duckdb.DuckDBPyConnection, upd: pa.Table) -> None:
        con.register("_fr_upd", upd)
        try:
            con.execute(
                "UPDATE frontier SET state = u.state, reason = u.reason FROM _fr_upd u"
                " WHERE frontier.run_id = ? AND frontier.lid = u.lid",
                [self.run_id],
            )
        finally:
            con.unregister("_fr_upd")

    # -- reads ------------------------------------------------------------------

    def load(self, n_levels: int, per_level: int, exclude: set[int] | None = None) -> list[Entry]:
        """Take up to ``per_level`` best unloaded queued links of each level into memory
        (the buffered new links are written first). Marks them loaded."""
        if self.n_unloaded <= 0:
            return []
        self.sync()
        out: list[Entry] = []
        cols = ("lid, url, host, site, depth, level, coalesce(score, 'NaN'::DOUBLE), parent,"
                " anchor, around, parent_score, dom_terms")
        for level in range(n_levels):
            rows = self.con.execute(
                f"SELECT {cols} FROM frontier WHERE run_id = ? AND state = 'queued'"
                " AND NOT loaded AND level = ? ORDER BY score DESC NULLS LAST, lid LIMIT ?",
                [self.run_id, level, per_level],
            ).fetchall()
            out.extend(Entry(int(r[0]), r[2], int(r[5]), float(r[6]),
                             LinkRecord(r[1], r[3], int(r[4]), r[7] or "", r[8] or "",
                                        r[9] or "", float(r[10] or 0.0), r[11] or ""))
                       for r in rows)  # fmt: skip
        if exclude:
            out = [e for e in out if e.lid not in exclude]
        if out:
            self._set_loaded([e.lid for e in out])
        self.n_unloaded = max(self.n_unloaded - len(out), 0)
        if not out:
            self.n_unloaded = self._count_unloaded()
        return out

    def open_reserve(self) -> int:
        """Every link in reserve becomes queued; how many."""
        if not self.reserved:
            return 0
        self.sync()
        self.con.execute("UPDATE frontier SET state = 'queued', loaded = false"
                         " WHERE run_id = ? AND state = 'reserve'", [self.run_id])  # fmt: skip
        n = len(self.reserved)
        self.reserved.clear()
        self.n_unloaded = self._count_unloaded()
        return n

    def requeue_skipped(self, sites: Sequence[str], reason: str) -> int:
        """Links of ``sites`` skipped for ``reason`` become queued again (those skipped
        since the last commit too: their buffered change is dropped); how many."""
        if not sites:
            return 0
        self.sync()
        self.con.register("_fr_sites", pa.table({"site": pa.array(list(sites), pa.string())}))
        try:
            row = self.con.execute(
                "UPDATE frontier SET state = 'queued', reason = '', loaded = false"
                " WHERE run_id = ? AND state = 'skipped' AND reason = ?"
                " AND site IN (SELECT site FROM _fr_sites)", [self.run_id, reason]
            ).fetchall()  # fmt: skip
            n = int(row[0][0]) if row else 0
            pending = [r[0] for r in self._updates.rows if r[1] == "skipped" and r[2] == reason]
            if pending:
                back = {int(r[0]) for r in self.con.execute(
                    "SELECT lid FROM frontier WHERE run_id = ? AND lid IN (SELECT unnest(?))"
                    " AND site IN (SELECT site FROM _fr_sites)", [self.run_id, pending]
                ).fetchall()}  # fmt: skip
                if back:
                    self._updates.rows = [r for r in self._updates.rows if r[0] not in back]
                    self._set_loaded(sorted(back), False)
                    n += len(back)
        finally:
            self.con.unregister("_fr_sites")
        self.n_unloaded = self._count_unloaded()
        return n

    def _count_unloaded(self) -> int:
        row = self.con.execute(
            "SELECT count(*) FROM frontier WHERE run_id = ? AND state = 'queued' AND NOT loaded",
            [self.run_id],
        ).fetchall()[0]
        return int(row[0])

    def _set_loaded(self, lids: Sequence[int], value: bool = True) -> None:
        t = pa.table({"lid": pa.array(lids, type=pa.int64())})
        self.con.register("_fr_lids", t)
        try:
            self.con.execute(
                f"UPDATE frontier SET loaded = {'true' if value else 'false'} FROM _fr_lids u"
                " WHERE frontier.run_id = ? AND frontier.lid = u.lid",
                [self.run_id],
            )
        finally:
            self.con.unregister("_fr_lids")

    def rerank(self, scorer: LinkScorer, n_levels: int, *, batch: int = 50_000,
               chunk: int = 1_000_000, inflight: Sequence[int] = (), promote_below: int = 0,
               routes: RoutesFirst | None = None) -> int:  # fmt: skip
        """Re-score every queued link with ``scorer``, then put the links ``routes``
        chooses first; all become unloaded except ``inflight``. With ``promote_below`` the
        links in reserve are re-scored too, and those placed in a level below it become
        queued. Links whose fetch ended since the last commit (a buffered state change)
        are left alone. Read, scored and written ``chunk`` lids at a time (memory is
        bounded by the chunk, not the frontier), scored ``batch`` links at a time.
        Returns the number of links re-scored."""
        t0 = time.perf_counter()
        self.last_rerank_tokens = False
        self.sync()
        states = "('queued', 'reserve')" if promote_below > 0 and self.reserved else "('queued')"
        ended = [r[0] for r in self._updates.rows]
        where = (f"run_id = ? AND state IN {states}"
                 + (" AND lid NOT IN (SELECT unnest(?))" if ended else ""),
                 [self.run_id, ended] if ended else [self.run_id])  # fmt: skip
        self.con.execute("BEGIN TRANSACTION")  # the row ids read stay valid until the UPDATE
        try:
            n, unloaded, gone = self._rerank(scorer, n_levels, where, batch, chunk,
                                             promote_below, routes)  # fmt: skip
            if inflight:
                self._set_loaded(list(inflight))
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        if gone:
            self.reserved = {u: lid for u, lid in self.reserved.items() if lid not in gone}
        if n:
            self.n_unloaded = unloaded - len(inflight)
        self.last_rerank_seconds = time.perf_counter() - t0
        return n

    def _rerank(self, scorer: LinkScorer, n_levels: int, where: Where, batch: int,
                chunk: int, promote_below: int,
                routes: RoutesFirst | None) -> tuple[int, int, set[int]]:  # fmt: skip
        """``rerank`` inside its transaction: (links re-scored, of those the queued ones
        and the promoted ones, the promoted lids). Each chunk of lids is read, scored and
        written before the next."""
        lo, hi = self.con.execute(f"SELECT min(lid), max(lid) FROM frontier WHERE {where[0]}",
                                  where[1]).fetchall()[0]  # fmt: skip
        if lo is None:
            return 0, 0, set()
        first = (self._routes_first(routes, where) if routes is not None
                 else (np.zeros(0, np.int64), np.zeros(0)))  # fmt: skip
        tokens = scorer.token_spaces is not None
        self.last_rerank_tokens = tokens
        n = unloaded = 0
        promoted: list[np.ndarray] = []
        for a in range(int(lo), int(hi) + 1, chunk):
            part = (f"{where[0]} AND lid >= ? AND lid < ?", [*where[1], a, a + chunk])
            batches = (self._token_batches(scorer, part, batch) if tokens
                       else self._frame_batches(scorer, part, batch))  # fmt: skip
            ranks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # row ids, levels, scores
            for lid, rowid, res, lv, sc in batches:
                raw, sc = np.asarray(lv, dtype=np.int64), np.asarray(sc, dtype=np.float64)
                if routes is not None and len(first[0]):
                    raw, sc = routes.place(raw, sc, _bonus_of(first, lid))
                ranks.append((rowid, level_of(raw, sc, n_levels).astype(np.int32), sc))
                up = res & (raw >= 0) & (raw < promote_below) & ~np.isnan(sc)
                promoted.append(lid[up])
                n += len(lid)
                unloaded += int((~res | up).sum())
            self._write_ranks(ranks)
        if not n:
            return 0, 0, set()
        self.con.execute(f"UPDATE frontier SET loaded = false WHERE {where[0]} AND loaded",
                         where[1])  # fmt: skip
        gone = np.concatenate(promoted)
        if len(gone):
            self.con.register("_fr_up", pa.table({"lid": pa.array(gone, type=pa.int64())}))
            try:
                self.con.execute("UPDATE frontier SET state = 'queued' FROM _fr_up u"
                                 " WHERE frontier.run_id = ? AND frontier.lid = u.lid",
                                 [self.run_id])  # fmt: skip
            finally:
                self.con.unregister("_fr_up")
        return n, unloaded, set(gone.tolist())

    def _routes_first(self, routes: RoutesFirst, where: Where) -> tuple[np.ndarray, np.ndarray]:
        """(lids, bonuses) of the links ``routes`` puts first at this re-rank, lids sorted:
        of the links of its sites (read by lid), by their bonus (``route_bonus``)."""
        sites = routes.sites()
        if not sites:
            return np.zeros(0, np.int64), np.zeros(0)
        self.con.register("_fr_sites", pa.table({"site": pa.array(sorted(sites), pa.string())}))
        try:
            rows = self.con.sql(
                f"SELECT lid, site FROM frontier WHERE {where[0]}"
                " AND site IN (SELECT site FROM _fr_sites) ORDER BY lid", params=where[1],
            ).to_arrow_table()  # fmt: skip
        finally:
            self.con.unregister("_fr_sites")
        lids = rows.column(0).to_numpy()
        bonus = self._route_bonus(routes, lids)
        take = routes.first(rows.column(1).to_pylist(), bonus)
        return lids[take], bonus[take]

    def _route_bonus(self, routes: RoutesFirst, lids: np.ndarray) -> np.ndarray:
        """The route bonus of stored links ``lids``, each computed from its text once."""
        if len(lids) and int(lids.max()) >= len(self.route_bonus):
            grown = np.full(max(int(lids.max()) + 1, 2 * len(self.route_bonus)), np.nan,
                            np.float32)  # fmt: skip
            grown[: len(self.route_bonus)] = self.route_bonus
            self.route_bonus = grown
        missing = lids[np.isnan(self.route_bonus[lids])]
        if len(missing):
            self.con.register("_fr_rb", pa.table({"lid": pa.array(missing, type=pa.int64())}))
            try:
                rows = self.con.execute(
                    "SELECT lid, url, anchor, around FROM frontier WHERE run_id = ?"
                    " AND lid IN (SELECT lid FROM _fr_rb)", [self.run_id]).fetchall()  # fmt: skip
            finally:
                self.con.unregister("_fr_rb")
            for lid, url, anchor, around in rows:
                self.route_bonus[lid] = routes.bonus(url, anchor or "", around or "")
        return self.route_bonus[lids].astype(np.float64)

    def _write_ranks(self, ranks: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
        """UPDATE level and score of the rows (row id, level, score) of ``ranks``."""
        if not ranks:
            return
        table = pa.table({"rid": pa.array(np.concatenate([r[0] for r in ranks]), pa.int64()),
                          "level": pa.array(np.concatenate([r[1] for r in ranks])),
                          "score": pa.array(np.concatenate([r[2] for r in ranks]),
                                            from_pandas=True)})  # fmt: skip
        self.con.register("_fr_rank", table)
        try:
            self.con.execute("UPDATE frontier SET level = u.level, score = u.score"
                             " FROM _fr_rank u WHERE frontier.rowid = u.rid")  # fmt: skip
        finally:
            self.con.unregister("_fr_rank")

    def _frame_batches(self, scorer: LinkScorer, where: Where, batch: int) -> Iterator[Scored]:
        """(lids, row ids, in reserve, levels, scores) per batch in lid order: the links'
        text read and scored with ``score_frame``."""
        reader = self.con.sql(
            "SELECT lid, url, site, depth, parent, anchor, around, parent_score, dom_terms,"
            f" state = 'reserve' AS reserve, rowid FROM frontier WHERE {where[0]} ORDER BY lid",
            params=where[1],
        ).to_arrow_reader(batch)  # fmt: skip
        for rb in reader:
            if rb.num_rows:
                lv, sc = scorer.score_frame(rb.drop_columns(["rowid"]).to_pandas())
                res = rb.column(9).to_numpy(zero_copy_only=False).astype(bool)
                yield rb.column(0).to_numpy(), rb.column(10).to_numpy(), res, lv, sc

    def _token_batches(self, scorer: LinkScorer, where: Where, batch: int) -> Iterator[Scored]:
        """As ``_frame_batches`` (the same batches), scored with ``score_tokens`` from the
        links' token ids (``self.tokens``); links not tokenised yet are, first."""
        rows = self.con.sql(
            "SELECT lid, rowid, state = 'reserve' AS reserve, depth, parent_score"
            f" FROM frontier WHERE {where[0]}", params=where[1],
        ).to_arrow_table()  # fmt: skip
        cols = [rows.column(i).to_numpy() for i in range(5)]
        del rows
        lid = cols[0]
        if len(lid) > 1 and not (np.diff(lid) > 0).all():  # read in insertion order: rarely
            order = np.argsort(lid, kind="stable")
            cols = [c[order] for c in cols]
            lid = cols[0]
        rowid, res = cols[1], cols[2].astype(bool)
        depth, ps = cols[3].astype(np.float64), cols[4].astype(np.float64)
        del cols
        spaces = scorer.token_spaces or ()
        if spaces:  # depth and parent score alone need no token
            self._tokenise(self.tokens.missing(lid, spaces), batch, spaces)
        for a in range(0, len(lid), batch):
            b = min(a + batch, len(lid))
            lv, sc = scorer.score_tokens(self.tokens.take(lid[a:b], spaces, depth[a:b], ps[a:b]))
            yield lid[a:b], rowid[a:b], res[a:b], lv, sc

    def _tokenise(self, lids: np.ndarray, batch: int,
                  spaces: Sequence[str] = SPACES) -> None:  # fmt: skip
        """Tokenise stored links ``lids`` (sorted; ``LinkTokens.add``) in ``spaces`` from
        their text (only the columns those spaces read), read ``batch`` rows at a time (a
        lid range, and only those lids unless they are all of it)."""
        if len(lids) == 0:
            return
        lo, hi = int(lids[0]), int(lids[-1])
        sql = (f"SELECT lid, {', '.join(LinkTokens.columns(spaces))} FROM frontier"
               " WHERE run_id = ? AND lid >= ? AND lid <= ?")  # fmt: skip
        every = len(lids) == hi - lo + 1
        if not every:
            self.con.register("_fr_tok", pa.table({"lid": pa.array(lids, type=pa.int64())}))
            sql += " AND lid IN (SELECT lid FROM _fr_tok)"
        try:
            for rb in self.con.sql(sql, params=[self.run_id, lo, hi]).to_arrow_reader(batch):
                if rb.num_rows:
                    self.tokens.add(rb.column(0).to_numpy(), rb, spaces)
        finally:
            if not every:
                self.con.unregister("_fr_tok")


def _bonus_of(first: tuple[np.ndarray, np.ndarray], lids: np.ndarray) -> np.ndarray:
    """The bonus of each of ``lids`` among the links put first (``first``: sorted lids and
    their bonuses), 0 for the others."""
    chosen, bonus = first
    pos = np.minimum(np.searchsorted(chosen, lids), len(chosen) - 1)
    return np.where(chosen[pos] == lids, bonus[pos], 0.0)
