"""The form directory: one row per distinct form across runs, and the log of every copy.

A form's identity is (site, signature) (ARCHITECTURE.md §4). The catalogue's
``forms`` table is the log: one row per run that saw the form (a copy). The
directory groups the copies of one identity:

- ``form_id`` is the newest copy's (the page, fields and path shown are its own);
  ``first_seen``/``last_seen``, ``copies``, ``runs`` and ``pages`` cover every copy;
- the verdict (``verdict_*``, ``searchable_score``, ``domain_score``) is the newest
  copy's latest one: the re-judging's (``formhunter rejudge``, table ``form_verdicts``)
  when there was one, else the crawl's; ``judged_by`` says which ("run N" or
  "rejudge N") and ``model`` which domain model (``MODEL``; all the models with
  their metrics are in ``runs.models`` and ``rejudgings.models``);
- a user's label attaches to the identity (the latest label given to any copy):
  ``label_ok``, ``label_domain``, ``label_note``, ``labelled_at``; it overrides the
  verdict in ``searchable``, ``domain`` and ``relevant`` (relevant: the label's domain
  is the domain of the run that saw the newest copy);
- a probing (``formhunter probe``) also attaches to the identity: the latest one is
  ``probe`` (nested selections), and a form that answers queries with results of a
  domain has that domain unless a label says otherwise; ``domain_source`` says where
  ``domain`` comes from (label, probe, critic) and ``critic_domain`` keeps the verdict's.

The SQL here is built for the file's schema: a read-only file of an older schema
(which ``Catalogue`` does not migrate) gets empty stand-ins for what it lacks. A
writable open also stores the same SQL as the views ``form_directory`` and
``form_log`` for other tools (``refresh_views``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from formhunter.exceptions import UsageError

#: what ``true_domain`` holds for a searchable form of no known domain (the packs' "other")
OTHER_DOMAIN = "other"
#: what ``true_domain`` holds for a form that is not searchable at all
NOT_SEARCHABLE = "not-searchable"

#: Columns of a directory row, in order (``fields`` and ``path`` follow when nested).
DIRECTORY_COLUMNS = (
    "form_id", "site", "signature", "page_url", "page_title", "action_url", "method",
    "n_fields", "searchable", "domain", "relevant", "domain_source", "critic_domain",
    "searchable_score", "domain_score", "verdict_searchable", "verdict_domain",
    "verdict_relevant", "judged_by", "model",
    "labelled", "label_ok", "label_domain", "label_note", "labelled_at", "first_seen",
    "last_seen", "copies", "runs", "pages", "run_domain", "context", "text",
)  # fmt: skip
#: Columns of a log row (one per copy), in order.
LOG_COLUMNS = (
    "form_id", "run_id", "seq", "page_url", "page_title", "site", "action_url", "method",
    "signature", "searchable", "searchable_score", "domain", "critic_domain",
    "domain_source", "domain_score", "relevant", "n_fields", "found_after_pages", "found_at",
    "rendered", "judged_by", "model",
    "labelled", "label_ok", "label_domain", "label_note", "labelled_at", "context", "text",
)  # fmt: skip
#: nested columns, written as JSON text in CSV (``probe`` only in nested selections)
NESTED = ("fields", "path", "runs", "pages", "probe")

_EMPTY_VERDICTS = ("(SELECT NULL::INTEGER AS rejudge_id, NULL::BIGINT AS form_id,"
                   " NULL::BOOLEAN AS searchable, NULL::DOUBLE AS searchable_score,"
                   " NULL::VARCHAR AS domain, NULL::DOUBLE AS domain_score,"
                   " NULL::BOOLEAN AS relevant WHERE false)")  # fmt: skip
_EMPTY_REJUDGINGS = ("(SELECT NULL::INTEGER AS rejudge_id, NULL::VARCHAR AS models"
                     " WHERE false)")  # fmt: skip
_EMPTY_PROBES = ("(SELECT NULL::VARCHAR AS site, NULL::VARCHAR AS signature,"
                 " NULL::TIMESTAMP AS probed_at, NULL::VARCHAR AS verdict,"
                 " NULL::VARCHAR AS domain, NULL::DOUBLE AS domain_score,"
                 " NULL::VARCHAR[] AS inputs, NULL::BIGINT AS results_estimate,"
                 " NULL::INTEGER AS submissions WHERE false)")  # fmt: skip
_EMPTY_LABELS = ("(SELECT NULL::BIGINT AS form_id, NULL::TIMESTAMP AS labelled_at,"
                 " NULL::BOOLEAN AS verdict_ok, NULL::VARCHAR AS true_domain,"
                 " NULL::VARCHAR AS note WHERE false)")  # fmt: skip


def _tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute("SELECT table_name FROM information_schema.tables"
                       " WHERE table_schema = 'main'").fetchall()  # fmt: skip
    return {r[0] for r in rows}


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    return {r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()}


class Schema:
    """What the file holds of the tables the directory reads."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        tables = _tables(con)
        self.labels = "form_labels" in tables
        self.rejudgings = "form_verdicts" in tables and "rejudgings" in tables
        self.run_models = "models" in _columns(con, "runs")
        self.probes = "form_probes" in tables


def labels_sql(schema: Schema) -> str:
    """The latest label of each identity: site, signature, label_form_id, labelled_at,
    verdict_ok, true_domain, note."""
    table = "form_labels" if schema.labels else _EMPTY_LABELS
    return f"""
SELECT f.site, f.signature, l.form_id AS label_form_id, l.labelled_at, l.verdict_ok,
       l.true_domain, l.note
FROM {table} l JOIN forms f USING (form_id)
QUALIFY row_number() OVER (PARTITION BY f.site, f.signature
                           ORDER BY l.labelled_at DESC, l.form_id DESC) = 1"""


def probes_sql(schema: Schema) -> str:
    """The latest probing of each identity (``formhunter probe``): site, signature,
    verdict, domain, inputs, results_estimate, submissions, and ``probe`` (those as one
    struct, what the exports carry), and ``probed_domain``: the probe's domain when the
    form answers queries and its results have one (it overrides the critic's guess)."""
    table = "form_probes" if schema.probes else _EMPTY_PROBES
    return f"""
SELECT site, signature,
       CASE WHEN verdict = 'answers' AND coalesce(domain, '') <> '' THEN domain END
           AS probed_domain,
       {{'verdict': verdict, 'domain': domain, 'inputs': inputs,
         'results_estimate': results_estimate, 'submissions': submissions}} AS probe
FROM {table}
QUALIFY row_number() OVER (PARTITION BY site, signature ORDER BY probed_at DESC) = 1"""


#: The model a row names: the domain model's name and the first 12 hex digits of its
#: manifest's SHA-256 (``classifiers.persist.model_info``), else the critic's name.
MODEL = ("coalesce(json_extract_string({m}, '$.domain.name') || '@' ||"
         " left(json_extract_string({m}, '$.domain.manifest_sha256'), 12),"
         " json_extract_string({m}, '$.critic'))")


def verdicts_sql(schema: Schema) -> str:
    """The current verdict of each stored copy (the latest re-judging's, else the
    crawl's): form_id, searchable, searchable_score, domain, domain_score, relevant,
    judged_by, model."""
    verdicts = "form_verdicts" if schema.rejudgings else _EMPTY_VERDICTS
    rejudgings = "rejudgings" if schema.rejudgings else _EMPTY_REJUDGINGS
    run_models = "r.models" if schema.run_models else "NULL::VARCHAR"
    return f"""
SELECT f.form_id,
       coalesce(v.searchable, f.searchable) AS searchable,
       coalesce(v.searchable_score, f.searchable_score) AS searchable_score,
       CASE WHEN v.form_id IS NULL THEN f.domain ELSE v.domain END AS domain,
       coalesce(v.domain_score, f.domain_score) AS domain_score,
       coalesce(v.relevant, f.relevant) AS relevant,
       CASE WHEN v.form_id IS NULL THEN 'run ' || f.run_id
            ELSE 'rejudge ' || v.rejudge_id END AS judged_by,
       {MODEL.format(m=f"CASE WHEN v.form_id IS NULL THEN {run_models} ELSE j.models END")}
           AS model
FROM forms f
LEFT JOIN (SELECT * FROM {verdicts}
           QUALIFY row_number() OVER (PARTITION BY form_id ORDER BY rejudge_id DESC) = 1) v
       USING (form_id)
LEFT JOIN {rejudgings} j ON j.rejudge_id = v.rejudge_id
LEFT JOIN runs r ON r.run_id = f.run_id"""


def directory_sql(schema: Schema) -> str:
    """One row per (site, signature), columns ``DIRECTORY_COLUMNS``."""
    return f"""
WITH agg AS (
    SELECT site, signature, max(form_id) AS form_id, count(*) AS copies,
           min(found_at) AS first_seen, max(found_at) AS last_seen,
           list_sort(list(DISTINCT run_id)) AS runs, list_sort(list(DISTINCT page_url)) AS pages
    FROM forms GROUP BY site, signature),
v AS ({verdicts_sql(schema)}),
lab AS ({labels_sql(schema)}),
p AS ({probes_sql(schema)})
SELECT a.form_id, a.site, a.signature, f.page_url, f.page_title, f.action_url, f.method,
       f.n_fields,
       CASE WHEN lab.true_domain IS NULL THEN v.searchable
            ELSE lab.true_domain <> '{NOT_SEARCHABLE}' END AS searchable,
       CASE WHEN lab.true_domain IS NULL THEN coalesce(p.probed_domain, v.domain)
            WHEN lab.true_domain = '{NOT_SEARCHABLE}' THEN ''
            ELSE lab.true_domain END AS domain,
       CASE WHEN lab.true_domain IS NOT NULL THEN 'label'
            WHEN p.probed_domain IS NOT NULL THEN 'probe' ELSE 'critic' END AS domain_source,
       v.domain AS critic_domain, p.probe,
       CASE WHEN lab.true_domain IS NULL THEN v.relevant
            ELSE coalesce(lab.true_domain = r.domain, false) END AS relevant,
       v.searchable_score, v.domain_score, v.searchable AS verdict_searchable,
       v.domain AS verdict_domain, v.relevant AS verdict_relevant, v.judged_by, v.model,
       lab.label_form_id IS NOT NULL AS labelled, lab.verdict_ok AS label_ok,
       lab.true_domain AS label_domain, lab.note AS label_note, lab.labelled_at,
       a.first_seen, a.last_seen, a.copies, a.runs, a.pages, r.domain AS run_domain,
       f.context, f.text
FROM agg a
JOIN forms f ON f.form_id = a.form_id
JOIN v ON v.form_id = a.form_id
LEFT JOIN runs r ON r.run_id = f.run_id
LEFT JOIN lab ON lab.site = a.site AND lab.signature = a.signature
LEFT JOIN p ON p.site = a.site AND p.signature = a.signature"""


def log_sql(schema: Schema) -> str:
    """One row per stored copy with the crawl's verdict and its identity's label,
    columns ``LOG_COLUMNS``."""
    run_models = "r.models" if schema.run_models else "NULL::VARCHAR"
    return f"""
WITH lab AS ({labels_sql(schema)}),
p AS ({probes_sql(schema)})
SELECT f.form_id, f.run_id, f.seq, f.page_url, f.page_title, f.site, f.action_url, f.method,
       f.signature, f.searchable, f.searchable_score,
       coalesce(p.probed_domain, f.domain) AS domain, f.domain AS critic_domain,
       CASE WHEN p.probed_domain IS NOT NULL THEN 'probe' ELSE 'critic' END AS domain_source,
       p.probe, f.domain_score, f.relevant,
       f.n_fields, f.found_after_pages, f.found_at, f.rendered, 'run ' || f.run_id AS judged_by,
       {MODEL.format(m=run_models)} AS model, lab.label_form_id IS NOT NULL AS labelled,
       lab.verdict_ok AS label_ok, lab.true_domain AS label_domain, lab.note AS label_note,
       lab.labelled_at, f.context, f.text
FROM forms f
LEFT JOIN runs r ON r.run_id = f.run_id
LEFT JOIN lab ON lab.site = f.site AND lab.signature = f.signature
LEFT JOIN p ON p.site = f.site AND p.signature = f.signature"""


NESTED_SQL = """
SELECT s.*, coalesce(fl.fields, []) AS fields, coalesce(fp.path, []) AS path FROM ({rows}) s
LEFT JOIN (SELECT form_id, list({{'position': position, 'name': name, 'type': type,
                                  'label': label, 'options': options, 'value': value,
                                  'placeholder': placeholder}} ORDER BY position) AS fields
           FROM form_fields GROUP BY form_id) fl USING (form_id)
LEFT JOIN (SELECT form_id, list({{'url': url, 'anchor': anchor}} ORDER BY hop) AS path
           FROM form_paths GROUP BY form_id) fp USING (form_id)
"""


def refresh_views(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)create the views ``form_directory`` and ``form_log`` from this code's SQL."""
    schema = Schema(con)
    con.execute(f"CREATE OR REPLACE VIEW form_directory AS {directory_sql(schema)}")
    con.execute(f"CREATE OR REPLACE VIEW form_log AS {log_sql(schema)}")


def select_forms(con: duckdb.DuckDBPyConnection, *, all_rows: bool = False,
                 nested: bool = False, domain: str | None = None, relevant: bool | None = None,
                 run_id: int | None = None, site: str | None = None,
                 min_score: float | None = None, max_score: float | None = None,
                 labelled: bool | None = None) -> tuple[str, list[Any]]:  # fmt: skip
    """SQL and parameters of the directory (``all_rows``: the log) with filters.

    ``domain``/``relevant``: the directory's (a label overrides the verdict), the
    crawl's in the log; ``relevant`` False selects the forms that are not.
    ``run_id``: forms a run saw; ``min_score``/``max_score``: searchable forms whose
    domain score lies in the range; ``labelled``: True only labelled forms, False
    only unlabelled ones. ``nested`` adds ``fields`` ({position, name, type, label,
    options, value, placeholder} in form order) and ``path`` ({url, anchor} from the seed).
    """
    schema = Schema(con)
    rows = log_sql(schema) if all_rows else directory_sql(schema)
    where: list[str] = []
    params: list[Any] = []
    if domain:
        where.append("domain = ?")
        params.append(domain)
    if relevant is not None:
        where.append("relevant" if relevant else "NOT coalesce(relevant, false)")
    if run_id is not None:
        where.append("run_id = ?" if all_rows else "list_contains(runs, ?)")
        params.append(int(run_id))
    if site:
        where.append("site = ?")
        params.append(site)
    for bound, op in ((min_score, ">="), (max_score, "<=")):
        if bound is not None:
            where.append(f"{'searchable' if all_rows else 'verdict_searchable'}"
                         f" AND domain_score {op} ?")
            params.append(float(bound))
    if labelled is not None:
        where.append("labelled" if labelled else "NOT labelled")
    cols = [*(LOG_COLUMNS if all_rows else DIRECTORY_COLUMNS), *(("probe",) if nested else ())]
    sql = f"SELECT {', '.join(cols)} FROM ({rows})"
    if where:
        sql += " WHERE " + " AND ".join(where)
    if nested:
        sql = NESTED_SQL.format(rows=sql)
    order = "run_id, form_id" if all_rows else "site, form_id"
    return sql + f" ORDER BY {order}", params


def forms_table(con: duckdb.DuckDBPyConnection, **filters: Any) -> pa.Table:
    """``select_forms`` as an Arrow table."""
    sql, params = select_forms(con, **filters)
    return con.sql(sql, params=params).to_arrow_table()


def nested_as_json(data: pa.Table) -> pa.Table:
    """``data`` with its nested columns (``NESTED``) as JSON text (for CSV)."""
    for name in NESTED:
        if name in data.schema.names:
            i = data.schema.get_field_index(name)
            col = pa.array([json.dumps(v, ensure_ascii=False, default=str)
                            for v in data.column(name).to_pylist()], pa.string())  # fmt: skip
            data = data.set_column(i, name, col)
    return data


EXPORT_OPTIONS = {"csv": "FORMAT CSV, HEADER", "json": "FORMAT JSON, ARRAY true",
                  "parquet": "FORMAT PARQUET"}  # fmt: skip


def export_forms(con: duckdb.DuckDBPyConnection, fmt: str, out: str | Path,
                 **filters: Any) -> int:  # fmt: skip
    """Write the selected forms (``select_forms``; the directory unless ``all_rows``)
    to ``out`` as csv, json (an array) or parquet, with fields and path: nested in
    json and parquet, JSON text in csv (``nested_as_json``). Returns the rows written."""
    if fmt not in EXPORT_OPTIONS:
        raise UsageError(f"unknown export format {fmt!r} (csv, json, parquet)")
    data = forms_table(con, nested=True, **filters)
    if fmt == "csv":
        data = nested_as_json(data)
    con.register("_export", data)
    try:
        target = str(out).replace("'", "''")
        con.execute(f"COPY _export TO '{target}' ({EXPORT_OPTIONS[fmt]})")
    finally:
        con.unregister("_export")
    return data.num_rows
