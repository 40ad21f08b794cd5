"""Users' labels of forms (verdict right or wrong, the true domain): written by the web
page and ``bench labels``, read by the trainers and the web page (``form_labels``,
schema version 4)."""

from __future__ import annotations

from typing import Any

import duckdb

from formhunter import directory
from formhunter.directory import NOT_SEARCHABLE, OTHER_DOMAIN
from formhunter.exceptions import UsageError
from formhunter.schema import now


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
