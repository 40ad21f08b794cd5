"""The catalogue writer of a cluster crawl: the one process that opens the DuckDB file.

Shards ship the rows of each step (``ShardWorker.step``); ``write`` gives them the
run's global numbering -- page ``seq`` in arrival order (so ``found_after_pages``
means what it means in a single-process run), ``form_id`` -- drops a form its site
already has (a safety net: sites are owned by one shard), and commits them in one
transaction: a step is committed whole or not at all. It also serves each shard
its part of the catalogue when it (re)starts (``shard_state``), records the learner
actor's iterations and the run's counters. As one process does at its commit points,
it keeps a read snapshot of the file fresh (``catalogue.write_snapshot``): after a
step's commit that is a commit point of the run (``commit_every`` pages or seconds since
the last, as ``[crawl] commit_every_pages``/``commit_every_seconds`` mark them in one
process) and at least ``snapshot_every`` seconds after the last snapshot; ``formhunter
serve`` and the driver's ``--ui`` page read it while the writer holds the file. This
module does not import Ray.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from formhunter.catalogue import Catalogue, snapshot_path, write_learner_states, write_snapshot
from formhunter.cluster.shard import ShardState, shard_of
from formhunter.schema import insert_arrow, now

log = logging.getLogger(__name__)


class CatalogueWriter:
    """Writes one run of a cluster crawl into the catalogue at ``db`` (module doc);
    ``snapshot_every``: seconds between read snapshots (0: none), taken at the run's
    commit points, ``commit_every`` (pages, seconds) apart (default: every step's);
    ``memory_mb``: DuckDB's memory limit (``[crawl] db_memory_mb``)."""

    def __init__(self, db: str, snapshot_every: float = 0.0, memory_mb: int = 0,
                 commit_every: tuple[int, float] = (1, 0.0)) -> None:  # fmt: skip
        self.cat = Catalogue(db, memory_mb=memory_mb)
        self.snapshot_every = snapshot_every
        self.commit_every = commit_every
        self._last_point = (0, time.monotonic())
        self.snapshots = 0
        self.snapshot_failures = 0
        self._last_snapshot = 0.0
        self.run_id = 0
        self.pages = 0
        self.keys: set[tuple[str, str]] = set()
        self.next_form_id = 1
        self.writes = 0
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    def open_run(self, *, domain: str, strategy: str, max_pages: int, config: dict[str, Any],
                 seeds: list[str], resume: bool,
                 ) -> tuple[int, dict[str, Any] | None, int, list[str]]:  # fmt: skip
        """(run id, the resumed run's counters or None, its pages committed, its seeds:
        the stored ones of a resumed run, which the shards queue again as one process
        does); see ``Catalogue.open_run``."""
        run_id, run = self.cat.open_run(domain=domain, strategy=strategy, max_pages=max_pages,
                                        config=config, seeds=seeds, resume=resume)  # fmt: skip
        self.cat.commit()
        self.run_id = run_id
        con = self.cat.con
        self.pages = int(con.execute("SELECT count(*) FROM pages WHERE run_id = ?",
                                     [run_id]).fetchall()[0][0])  # fmt: skip
        self.keys = {(s, g) for s, g in con.execute(
            "SELECT site, signature FROM forms WHERE run_id = ?", [run_id]).fetchall()}
        self.next_form_id = int(con.execute(
            "SELECT coalesce(max(form_id), 0) + 1 FROM forms").fetchall()[0][0])
        stored = list(run.seeds) if run is not None else list(seeds)
        self._snapshot(force=True)  # readers see the run from its start
        return run_id, (run.counters if run is not None else None), self.pages, stored

    def shard_state(self, shard: int, n_shards: int) -> ShardState:
        """Shard ``shard``'s part of the run as committed: its sites' frontier rows,
        form keys and site counters; the parent pointers of every page (paths cross
        shards)."""
        con, run_id = self.cat.con, self.run_id
        rows = con.sql("SELECT * FROM frontier WHERE run_id = ?",
                       params=[run_id]).to_arrow_table()  # fmt: skip
        sites = rows.column("site").to_pylist()
        mask = pa.array([shard_of(s or "", n_shards) == shard for s in sites], pa.bool_())
        max_lid = int(pc.max(rows.column("lid")).as_py() or 0) if rows.num_rows else 0
        resume = self.cat.resume_state(run_id).only(lambda site: shard_of(site, n_shards) == shard)
        keys = {k for k in self.keys if shard_of(k[0], n_shards) == shard}
        return ShardState(rows.filter(mask), max_lid, resume, keys)

    def write(self, shard: int, tables: dict[str, pa.Table]) -> int:
        """Commit one step's rows of a shard; returns the run's page count."""
        t0, c0 = time.perf_counter(), time.process_time()
        con, run_id = self.cat.con, self.run_id
        pages = tables.get("pages")
        seq_map: dict[int, int] = {}
        if pages is not None and pages.num_rows:
            local = pages.column("seq").to_pylist()
            for i, s in enumerate(sorted(local)):
                seq_map[s] = self.pages + 1 + i
            pages = pages.set_column(pages.schema.get_field_index("seq"), "seq",
                                     pa.array([seq_map[s] for s in local], pa.int64()))  # fmt: skip
        forms, fields, paths = (tables.get(n) for n in ("forms", "form_fields", "form_paths"))
        if forms is not None and forms.num_rows:
            forms, fields, paths = self._number_forms(forms, fields, paths, seq_map)
        front = tables.get("frontier")
        if front is not None and front.num_rows:
            # a local seq of this step, or minus the run's page count (links routed from
            # another shard), or 0 (seeds)
            at = front.column("added_at_page").to_pylist()
            front = front.set_column(front.schema.get_field_index("added_at_page"),
                                     "added_at_page",
                                     pa.array([-a if a < 0 else seq_map.get(a, a) for a in at],
                                              pa.int64()))  # fmt: skip
        con.execute("BEGIN TRANSACTION")
        try:
            if front is not None:
                insert_arrow(con, "frontier", front)
            drops = tables.get("frontier_drops")
            if drops is not None and drops.num_rows:
                con.register("_fr_drop", drops)
                try:
                    con.execute("DELETE FROM frontier WHERE run_id = ? AND lid IN"
                                " (SELECT lid FROM _fr_drop)", [run_id])  # fmt: skip
                finally:
                    con.unregister("_fr_drop")
            upd = tables.get("frontier_updates")
            if upd is not None and upd.num_rows:
                con.register("_fr_upd", upd)
                try:
                    con.execute(
                        "UPDATE frontier SET state = u.state, reason = u.reason FROM _fr_upd u"
                        " WHERE frontier.run_id = ? AND frontier.lid = u.lid", [run_id])
                finally:
                    con.unregister("_fr_upd")
            for name, data in (("pages", pages), ("forms", forms), ("form_fields", fields),
                               ("form_paths", paths)):  # fmt: skip
                if data is not None:
                    insert_arrow(con, name, data)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        self.pages += len(seq_map)
        self.writes += 1
        pages_at, at = self._last_point
        if (self.pages - pages_at >= self.commit_every[0]
                or time.monotonic() - at >= self.commit_every[1]):  # fmt: skip
            self._last_point = (self.pages, time.monotonic())
            self._snapshot()
        self.seconds += time.perf_counter() - t0
        self.cpu_seconds += time.process_time() - c0
        return self.pages

    def _number_forms(self, forms: pa.Table, fields: pa.Table | None, paths: pa.Table | None,
                      seq_map: dict[int, int]) -> tuple[pa.Table, pa.Table | None,
                                                        pa.Table | None]:  # fmt: skip
        keep: list[int] = []
        ids: dict[int, int] = {}
        for i, (fid, site, sig) in enumerate(zip(forms.column("form_id").to_pylist(),
                                                 forms.column("site").to_pylist(),
                                                 forms.column("signature").to_pylist(),
                                                 strict=True)):  # fmt: skip
            if (site, sig) in self.keys:
                continue
            self.keys.add((site, sig))
            ids[fid] = self.next_form_id
            self.next_form_id += 1
            keep.append(i)
        forms = forms.take(pa.array(keep, pa.int64()))

        def renumber(t: pa.Table, col: str, mapping: dict[int, int]) -> pa.Table:
            vals = t.column(col).to_pylist()
            return t.set_column(t.schema.get_field_index(col), col,
                                pa.array([mapping.get(v, v) for v in vals], pa.int64()))

        forms = renumber(forms, "form_id", ids)
        forms = renumber(forms, "seq", seq_map)
        forms = renumber(forms, "found_after_pages", seq_map)

        def linked(t: pa.Table | None) -> pa.Table | None:
            if t is None or not t.num_rows:
                return t
            mask = pa.array([v in ids for v in t.column("form_id").to_pylist()], pa.bool_())
            return renumber(t.filter(mask), "form_id", ids)

        return forms, linked(fields), linked(paths)

    def _snapshot(self, force: bool = False) -> None:
        """Refresh the read snapshot when ``snapshot_every`` seconds have passed (or
        ``force``); a failure is logged and counted, never the crawl's end."""
        every = self.snapshot_every
        if not every or (not force and time.monotonic() - self._last_snapshot < every):
            return
        try:
            write_snapshot(self.cat.con, self.cat.path)
            self.snapshots += 1
        except (OSError, duckdb.Error) as exc:
            log.warning("the catalogue's read snapshot was not written: %s", exc)
            self.snapshot_failures += 1
        self._last_snapshot = time.monotonic()

    def learner_states(self) -> dict[str, bytes]:
        """The run's saved learner states, by learner name (empty for a new run)."""
        return self.cat.learner_states(self.run_id)

    def save_learner_states(self, states: list[tuple[str, bytes]]) -> None:
        """Replace the run's saved learner states, as of the pages committed (one
        transaction)."""
        con = self.cat.con
        con.execute("BEGIN TRANSACTION")
        try:
            write_learner_states(con, self.run_id, self.pages, states)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def page_count(self) -> int:
        """Pages of the run committed so far."""
        return self.pages

    def run_stats(self) -> dict[str, Any]:
        """``Catalogue.stats`` of the run as committed."""
        return self.cat.stats(self.run_id)

    def add_learning(self, rows: list[tuple[Any, ...]]) -> None:
        """The learner actor's iterations, numbered after the run's earlier ones."""
        if not rows:
            return
        con = self.cat.con
        done = int(con.execute("SELECT count(*) FROM learning_iterations WHERE run_id = ?",
                               [self.run_id]).fetchall()[0][0])  # fmt: skip
        con.executemany(
            "INSERT INTO learning_iterations (run_id, iteration, learned_at, at_page, learner,"
            " n_paths, seconds, features, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(self.run_id, done + i + 1, *r[2:]) for i, r in enumerate(rows)])

    def update_run(self, **fields: Any) -> None:
        """Set columns of the run's row now (dicts become JSON)."""
        sets = ", ".join(f"{k} = ?" for k in fields)
        vals = [json.dumps(v, default=str) if isinstance(v, dict | list) else v
                for v in fields.values()]  # fmt: skip
        self.cat.con.execute(f"UPDATE runs SET {sets} WHERE run_id = ?", [*vals, self.run_id])

    def finish(self, status: str, reason: str, **fields: Any) -> dict[str, Any]:
        """The run's last update (in the snapshot too); returns ``Catalogue.stats`` of
        the run."""
        self.update_run(status=status, end_reason=reason, finished_at=now(), **fields)
        self._snapshot(force=True)
        return self.cat.stats(self.run_id)

    def cost(self) -> dict[str, float]:
        return {"writes": self.writes, "seconds": round(self.seconds, 3),
                "cpu_seconds": round(self.cpu_seconds, 3), "snapshots": self.snapshots,
                "snapshot_failures": self.snapshot_failures}  # fmt: skip

    def close(self) -> None:
        """Close the file; its snapshot goes (readers read the file itself now)."""
        self.cat.close()
        if self.snapshot_every:
            snapshot_path(self.cat.path).unlink(missing_ok=True)
