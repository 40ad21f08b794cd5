"""The web page's reads of a catalogue, each a plain dict or list of dicts (its JSON twin)."""

from __future__ import annotations

import json
from typing import Any

import duckdb

from formhunter.catalogue import LATEST_LABELS_SQL, has_labels_table
from formhunter.exceptions import UsageError
from formhunter.reads import COLUMNS as RUN_COLUMNS
from formhunter.reads import RUNS_SQL, split_features

#: curve points sent for a finished run
CURVE_POINTS = 300
#: most forms one page of the list shows
MAX_LIMIT = 500


def _rows(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    return {r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()}


def runs(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every run with its counts (as ``formhunter runs``)."""
    end_reason = ("r.end_reason" if "end_reason" in _columns(con, "runs")
                  else "CAST(NULL AS VARCHAR)")  # fmt: skip
    rows = _rows(con.execute(RUNS_SQL.format(end_reason=end_reason)))
    return [{k: r[k] for k in RUN_COLUMNS} for r in rows]


def run_detail(con: duckdb.DuckDBPyConnection, run_id: int) -> dict[str, Any]:
    """One run: its row, seeds, the harvest curve and the learning iterations."""
    found = [r for r in runs(con) if r["run_id"] == run_id]
    if not found:
        raise LookupError(f"no run {run_id}")
    run = found[0]
    extra = con.execute("SELECT seeds, counters FROM runs WHERE run_id = ?", [run_id]).fetchall()
    seeds = json.loads(extra[0][0] or "[]")
    counters = json.loads(extra[0][1] or "{}")
    elapsed = float(counters.get("elapsed") or 0.0)
    found_after = [int(r[0] or 0) for r in con.execute(
        "SELECT found_after_pages FROM forms WHERE run_id = ? AND relevant"
        " ORDER BY found_after_pages", [run_id]).fetchall()]  # fmt: skip
    curve = [[0, 0]] + [[p, i + 1] for i, p in enumerate(found_after)]
    curve.append([int(run["pages"]), len(found_after)])
    if len(curve) > CURVE_POINTS:
        step = len(curve) / CURVE_POINTS
        curve = [curve[int(i * step)] for i in range(CURVE_POINTS)] + [curve[-1]]
    return {
        "run": run, "seeds": seeds[:50], "n_seeds": len(seeds), "curve": curve,
        "pages_per_second": round(run["pages"] / elapsed, 2) if elapsed else 0.0,
        "seconds": round(elapsed, 1), "learning": learning(con, run_id),
    }  # fmt: skip


def learning(con: duckdb.DuckDBPyConnection, run_id: int) -> list[dict[str, Any]]:
    """The run's learning iterations with the terms chosen in each feature space."""
    rows = _rows(con.execute(
        "SELECT iteration, at_page, learner, n_paths, round(seconds, 3) AS seconds, features,"
        " note FROM learning_iterations WHERE run_id = ? ORDER BY iteration",
        [run_id]))  # fmt: skip
    for r in rows:
        terms, _ = split_features(r.pop("features"))
        r["terms"] = {str(k): [str(t) for t in v][:40] for k, v in terms.items()}
    return rows


def _flag(value: str | None, name: str) -> bool | None:
    if value in (None, "", "any"):
        return None
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise UsageError(f"{name} must be yes, no or any")


def parse_filters(query: dict[str, str]) -> dict[str, Any]:
    """The form filters of a query string (UsageError on a bad value)."""
    out: dict[str, Any] = {}

    def number(key: str, kind: type[int] | type[float], default: str = "") -> Any:
        try:
            return kind(query.get(key) or default)
        except ValueError:
            raise UsageError(f"{key} must be a number, not {query.get(key)!r}") from None

    if query.get("run"):
        out["run"] = number("run", int)
    if query.get("min_score"):
        out["min_score"] = number("min_score", float)
        if not 0 <= out["min_score"] <= 1:
            raise UsageError("min_score must be between 0 and 1")
    out["limit"] = min(max(number("limit", int, "50"), 1), MAX_LIMIT)
    out["offset"] = max(number("offset", int, "0"), 0)
    for key in ("domain", "site"):
        if query.get(key):
            out[key] = query[key].strip()[:200]
    out["relevant"] = _flag(query.get("relevant"), "relevant")
    out["labelled"] = _flag(query.get("labelled"), "labelled")
    return out


def forms(con: duckdb.DuckDBPyConnection, filters: dict[str, Any]) -> dict[str, Any]:
    """A page of forms matching ``filters`` (``parse_filters``), with the total count."""
    where, params = [], []
    for key, col in (("run", "f.run_id"), ("domain", "f.domain"), ("site", "f.site")):
        if filters.get(key) is not None:
            where.append(f"{col} = ?")
            params.append(filters[key])
    if filters.get("min_score") is not None:
        where.append("f.searchable AND f.domain_score >= ?")
        params.append(filters["min_score"])
    if filters.get("relevant") is not None:
        where.append("f.relevant" if filters["relevant"] else "NOT f.relevant")
    labels = has_labels_table(con)
    join = (f"LEFT JOIN ({LATEST_LABELS_SQL}) l USING (form_id)" if labels else
            "LEFT JOIN (SELECT NULL::BIGINT AS form_id, NULL::BOOLEAN AS verdict_ok,"
            " NULL::VARCHAR AS true_domain) l USING (form_id)")  # fmt: skip
    if filters.get("labelled") is not None:
        where.append("l.form_id IS NOT NULL" if filters["labelled"] else "l.form_id IS NULL")
    cond = (" WHERE " + " AND ".join(where)) if where else ""
    total = con.execute(f"SELECT count(*) FROM forms f {join}{cond}", params).fetchall()[0][0]
    sql = (f"SELECT f.form_id, f.run_id, f.site, f.page_url, f.action_url, f.method, f.n_fields,"
           f" f.searchable, round(f.searchable_score, 3) AS searchable_score, f.domain,"
           f" round(f.domain_score, 3) AS domain_score, f.relevant, f.found_after_pages,"
           f" l.verdict_ok, l.true_domain FROM forms f {join}{cond}"
           f" ORDER BY f.run_id, f.form_id LIMIT ? OFFSET ?")  # fmt: skip
    rows = _rows(con.execute(sql, [*params, filters["limit"], filters["offset"]]))
    return {"total": int(total), "offset": filters["offset"], "limit": filters["limit"],
            "forms": rows}  # fmt: skip


def form_detail(con: duckdb.DuckDBPyConnection, form_id: int) -> dict[str, Any]:
    """One form: its verdict, fields, page, path from the seed, HTML and labels."""
    rows = _rows(con.execute(
        "SELECT form_id, run_id, seq, page_url, page_title, site, action_url, method, signature,"
        " searchable, round(searchable_score, 4) AS searchable_score, domain,"
        " round(domain_score, 4) AS domain_score, relevant, n_fields, found_after_pages,"
        " rendered, context, text, html, found_at FROM forms WHERE form_id = ?",
        [form_id]))  # fmt: skip
    if not rows:
        raise LookupError(f"no form {form_id}")
    form = rows[0]
    run = con.execute("SELECT domain FROM runs WHERE run_id = ?", [form["run_id"]]).fetchall()
    form["run_domain"] = run[0][0] if run else ""
    fields = _rows(con.execute(
        "SELECT position, name, type, label, options, value, placeholder FROM form_fields"
        " WHERE form_id = ? ORDER BY position", [form_id]))  # fmt: skip
    path = _rows(con.execute(
        "SELECT hop, url, anchor FROM form_paths WHERE form_id = ? ORDER BY hop", [form_id]))
    labels: list[dict[str, Any]] = []
    if has_labels_table(con):
        labels = _rows(con.execute(
            "SELECT labelled_at, verdict_ok, true_domain, note FROM form_labels"
            " WHERE form_id = ? ORDER BY labelled_at DESC", [form_id]))  # fmt: skip
    probe, submissions = form_probe(con, form["site"], form["signature"])
    return {"form": form, "fields": fields, "path": path, "labels": labels, "probe": probe,
            "submissions": submissions}  # fmt: skip


def form_probe(con: duckdb.DuckDBPyConnection, site: str,
               signature: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:  # fmt: skip
    """The latest probing of the directory entry (site, signature) and its submissions
    (None and [] when it was never probed, or the file predates probing)."""
    tables = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
    ).fetchall()}  # fmt: skip
    if "form_probes" not in tables:
        return None, []
    rows = _rows(con.execute(
        "SELECT form_id, probed_at, verdict, domain, round(domain_score, 3) AS domain_score,"
        " inputs, results_estimate, submissions, note FROM form_probes"
        " WHERE site = ? AND signature = ? ORDER BY probed_at DESC LIMIT 1",
        [site, signature]))  # fmt: skip
    if not rows:
        return None, []
    subs = _rows(con.execute(
        "SELECT n, kind, input, value, url, status, error, n_items, reported,"
        " round(topic_score, 3) AS topic_score FROM probes WHERE site = ? AND signature = ?"
        " AND probed_at = ? ORDER BY n", [site, signature, rows[0]["probed_at"]]))  # fmt: skip
    return rows[0], subs


def domain_choices(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Domains a label may name: known packs, those seen in the catalogue, other, none."""
    from formhunter.catalogue import NOT_SEARCHABLE, OTHER_DOMAIN
    from formhunter.keywords import known_domains

    seen = {r[0] for r in con.execute("SELECT DISTINCT domain FROM forms").fetchall() if r[0]}
    if has_labels_table(con):
        seen |= {r[0] for r in con.execute(
            "SELECT DISTINCT true_domain FROM form_labels").fetchall() if r[0]}  # fmt: skip
    names = sorted((set(known_domains()) | seen) - {OTHER_DOMAIN, NOT_SEARCHABLE})
    return [*names, OTHER_DOMAIN, NOT_SEARCHABLE]
