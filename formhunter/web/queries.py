"""The web page's reads of a catalogue, each a plain dict or list of dicts (its JSON twin)."""

from __future__ import annotations

import json
import math
from typing import Any

import duckdb

from formhunter.directory import Schema, select_forms
from formhunter.exceptions import UsageError
from formhunter.labels import has_labels_table
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


#: the largest id or offset a query may carry (DuckDB's BIGINT)
INT64_MAX = 2**63 - 1


def parse_filters(query: dict[str, str]) -> dict[str, Any]:
    """The form filters of a query string (UsageError on a bad value)."""
    out: dict[str, Any] = {}

    def number(key: str, kind: type[int] | type[float], default: str = "") -> Any:
        raw = query.get(key) or default
        try:
            value = kind(raw)
        except (ValueError, OverflowError):
            raise UsageError(f"{key} must be a number, not {query.get(key)!r}") from None
        in_range = 0 <= value <= INT64_MAX if kind is int else math.isfinite(value)
        if not in_range:
            raise UsageError(f"{key} is out of range: {raw[:40]!r}")
        return value

    if query.get("run"):
        out["run"] = number("run", int)
    for key in ("min_score", "max_score"):
        if query.get(key):
            out[key] = number(key, float)
            if not 0 <= out[key] <= 1:
                raise UsageError(f"{key} must be between 0 and 1")
    out["all_rows"] = bool(_flag(query.get("all_rows"), "all_rows"))
    out["limit"] = min(max(number("limit", int, "50"), 1), MAX_LIMIT)
    out["offset"] = max(number("offset", int, "0"), 0)
    for key in ("domain", "site"):
        if query.get(key):
            out[key] = query[key].strip()[:200]
    out["relevant"] = _flag(query.get("relevant"), "relevant")
    out["labelled"] = _flag(query.get("labelled"), "labelled")
    return out


def forms(con: duckdb.DuckDBPyConnection, filters: dict[str, Any]) -> dict[str, Any]:
    """A page of the directory (``all_rows``: of the log) matching ``filters``
    (``parse_filters``), with the total count."""
    get = filters.get
    sql, params = select_forms(
        con, all_rows=bool(get("all_rows")), domain=get("domain"), relevant=get("relevant"),
        run_id=get("run"), site=get("site"), min_score=get("min_score"),
        max_score=get("max_score"), labelled=get("labelled"),
    )  # fmt: skip
    total = con.execute(f"SELECT count(*) FROM ({sql})", params).fetchall()[0][0]
    rows = _rows(con.execute(f"{sql} LIMIT ? OFFSET ?",
                             [*params, filters["limit"], filters["offset"]]))  # fmt: skip
    for r in rows:
        r.pop("text", None)
        r.pop("context", None)
    return {"total": int(total), "offset": filters["offset"], "limit": filters["limit"],
            "all_rows": bool(filters.get("all_rows")), "forms": rows}  # fmt: skip


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
            "SELECT l.form_id, l.labelled_at, l.verdict_ok, l.true_domain, l.note"
            " FROM form_labels l JOIN forms f USING (form_id) WHERE f.site = ?"
            " AND f.signature = ? ORDER BY l.labelled_at DESC",
            [form["site"], form["signature"]]))  # fmt: skip
    copies = _rows(con.execute(
        "SELECT form_id, run_id, page_url, found_at, domain, round(domain_score, 3) AS"
        " domain_score, relevant FROM forms WHERE site = ? AND signature = ? ORDER BY form_id",
        [form["site"], form["signature"]]))  # fmt: skip
    verdicts = _rejudged(con, form_id)
    probe, submissions = form_probe(con, form["site"], form["signature"])
    return {"form": form, "fields": fields, "path": path, "labels": labels, "copies": copies,
            "verdicts": verdicts, "probe": probe, "submissions": submissions}  # fmt: skip


def _rejudged(con: duckdb.DuckDBPyConnection, form_id: int) -> list[dict[str, Any]]:
    """The verdicts re-judgings gave form ``form_id``, newest first."""
    if not Schema(con).rejudgings:
        return []
    return _rows(con.execute(
        "SELECT v.rejudge_id, j.finished_at, v.searchable, v.domain,"
        " round(v.domain_score, 3) AS domain_score, v.relevant FROM form_verdicts v"
        " JOIN rejudgings j USING (rejudge_id) WHERE v.form_id = ?"
        " ORDER BY v.rejudge_id DESC", [form_id]))  # fmt: skip


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
    from formhunter.directory import NOT_SEARCHABLE, OTHER_DOMAIN
    from formhunter.keywords import known_domains

    seen = {r[0] for r in con.execute("SELECT DISTINCT domain FROM forms").fetchall() if r[0]}
    if has_labels_table(con):
        seen |= {r[0] for r in con.execute(
            "SELECT DISTINCT true_domain FROM form_labels").fetchall() if r[0]}  # fmt: skip
    names = sorted((set(known_domains()) | seen) - {OTHER_DOMAIN, NOT_SEARCHABLE})
    return [*names, OTHER_DOMAIN, NOT_SEARCHABLE]
