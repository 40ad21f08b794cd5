"""Read-only views of a catalogue that the CLI (``commands/``) and the web page
(``web/``) share: open an existing catalogue, the runs with their counts, a learning
iteration's features."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa

from formhunter.catalogue import Catalogue, open_for_reading
from formhunter.exceptions import UsageError

#: the feature spaces of ACHE's link learner, as ``learning_iterations.features`` keys them
SPACES = ("url", "anchor", "around")


def open_catalogue(db: str | Path) -> Catalogue:
    """Open an existing catalogue read-only; while a crawl writes it, the snapshot the
    crawl keeps fresh at its commit points (saying so on stderr).

    A missing file is a UsageError; a file that is not a (readable) catalogue
    raises CatalogueError from ``Catalogue`` itself.
    """
    path = Path(db)
    if not path.exists():
        raise UsageError(f"no catalogue at {path} (make one with `formhunter crawl --db {path}`)")
    cat = open_for_reading(path)
    if cat.snapshot_of is not None:
        print(f"a crawl is writing {path}: showing its snapshot of {snapshot_time(cat.path)} "
              "(refreshed at its commit points)", file=sys.stderr)  # fmt: skip
    return cat


def snapshot_time(path: Path) -> str:
    """When a snapshot file was written, local time."""
    import time

    return time.strftime("%H:%M:%S", time.localtime(path.stat().st_mtime))


COLUMNS = ("run_id", "started_at", "finished_at", "domain", "strategy", "max_pages", "pages",
           "forms", "searchable_forms", "relevant_forms", "harvest_rate", "sites",
           "sites_relevant", "domain_sites_without", "pages_per_site",
           "learning_iterations", "requeued", "status", "end_reason")  # fmt: skip

RUNS_SQL = """
SELECT r.run_id, r.started_at, r.finished_at, r.domain, r.strategy, r.max_pages,
       coalesce(p.n, 0) AS pages, coalesce(f.n, 0) AS forms,
       coalesce(f.searchable, 0) AS searchable_forms,
       coalesce(f.relevant, 0) AS relevant_forms,
       CASE WHEN coalesce(p.n, 0) > 0 THEN CAST(coalesce(f.relevant, 0) AS DOUBLE) / p.n
            ELSE 0.0 END AS harvest_rate,
       coalesce(p.sites, 0) AS sites, coalesce(fs.n, 0) AS sites_relevant,
       coalesce(ds.n, 0) AS domain_sites_without,
       CASE WHEN coalesce(p.sites, 0) > 0 THEN CAST(p.n AS DOUBLE) / p.sites
            ELSE 0.0 END AS pages_per_site,
       coalesce(l.n, 0) AS learning_iterations,
       coalesce(TRY_CAST(CASE WHEN json_valid(r.counters)
                              THEN json_extract_string(r.counters, '$.requeued') END
                         AS BIGINT), 0) AS requeued,
       r.status, {end_reason} AS end_reason
FROM runs r
LEFT JOIN (SELECT run_id, count(*) AS n, count(DISTINCT site) AS sites FROM pages
           GROUP BY run_id) p USING (run_id)
LEFT JOIN (SELECT run_id, count(DISTINCT site) AS n FROM forms WHERE relevant
           GROUP BY run_id) fs USING (run_id)
LEFT JOIN (SELECT run_id, count(DISTINCT site) AS n FROM pages pg WHERE on_topic
           AND NOT EXISTS (SELECT 1 FROM forms f WHERE f.run_id = pg.run_id
                           AND f.site = pg.site AND f.relevant)
           GROUP BY run_id) ds USING (run_id)
LEFT JOIN (SELECT run_id, count(*) AS n, count(*) FILTER (WHERE searchable) AS searchable,
                  count(*) FILTER (WHERE relevant) AS relevant
           FROM forms GROUP BY run_id) f USING (run_id)
LEFT JOIN (SELECT run_id, count(*) AS n FROM learning_iterations GROUP BY run_id) l
       USING (run_id)
ORDER BY r.run_id
"""


def runs_table(cat: Catalogue) -> pa.Table:
    """The catalogue's runs with their counts, columns ``COLUMNS``."""
    # A read-only catalogue of schema version 2 is not migrated: no end_reason there.
    cols = {r[0] for r in cat.con.execute("DESCRIBE runs").fetchall()}
    end_reason = "r.end_reason" if "end_reason" in cols else "CAST(NULL AS VARCHAR)"
    sql = RUNS_SQL.format(end_reason=end_reason)
    return cat.con.sql(sql).to_arrow_table().select(list(COLUMNS))


def split_features(raw: str | None) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """A ``features`` JSON as (terms per feature space, the rest).

    ACHE's learner stores ``{"features": {space: [terms]}, "instances": {...}}``;
    a plain ``{space: [terms]}`` is read the same way. Anything else is all "rest".
    """
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        return {}, {"features": raw}
    if not isinstance(data, dict):
        return {}, {"features": data}
    rest = dict(data)
    nested = rest.get("features")
    if isinstance(nested, dict) and _has_spaces(nested):
        remaining = dict(nested)
        spaces = _pop_spaces(remaining)
        if remaining:
            rest["features"] = remaining
        else:
            del rest["features"]
    else:
        spaces = _pop_spaces(rest) if _has_spaces(rest) else {}
    return spaces, rest


def _has_spaces(d: dict[str, Any]) -> bool:
    return any(isinstance(d.get(s), list) for s in SPACES)


def _pop_spaces(d: dict[str, Any]) -> dict[str, list[str]]:
    """Remove the feature spaces' term lists from ``d`` and return them."""
    return {s: [str(t) for t in d.pop(s)] for s in SPACES if isinstance(d.get(s), list)}
