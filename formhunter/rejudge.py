"""Re-judging: the current models applied to every form a catalogue stores.

Each stored copy keeps its HTML, the context around it, its page's URL, title, site
name, navigation and topic score; ``rejudge`` rebuilds the form and its page from
them and calls the critic (any ``interfaces.FormCritic``, built by name from the
critics registry, one per target domain: a form's target is the domain of the run
that found it). The verdicts are recorded as one re-judging (table ``rejudgings``,
with the critic's models: path, manifest hash, metrics) and one ``form_verdicts``
row per copy, beside the verdict it replaced; the crawl's own verdicts in ``forms``
are never overwritten. The directory (``formhunter.directory``) shows the latest.

What changed is counted per distinct form (its newest copy): newly relevant, no
longer relevant, domain changed (a searchable form's best domain, or searchable
itself).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from formhunter.catalogue import Catalogue
from formhunter.directory import Schema, verdicts_sql
from formhunter.interfaces import FormCritic
from formhunter.model import Form, Page, Verdict
from formhunter.schema import insert_arrow, now

#: pages judged per call of the critic
BATCH = 64

#: the kinds of change a re-judging reports, in order
CHANGES = ("newly_relevant", "no_longer_relevant", "domain_changed")

_COPIES_SQL = """
SELECT f.form_id, f.run_id, r.domain AS run_domain, f.site, f.signature, f.page_url,
       coalesce(f.page_title, '') AS page_title, f.html, coalesce(f.context, '') AS context,
       coalesce(f.site_name, '') AS site_name, coalesce(f.nav, '') AS nav, f.page_score,
       f.action_url, f.page_topics
FROM forms f JOIN runs r USING (run_id)
ORDER BY f.run_id, f.page_url, f.form_index, f.form_id
"""


@dataclass
class Rejudging:
    """What a re-judging did: its id, the models, the copies judged and skipped
    (no form in the stored HTML), and the changes per distinct form."""

    rejudge_id: int
    critic: str
    models: dict[str, Any]
    judged: int
    skipped: int
    distinct: int
    changes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        return {k: len(self.changes.get(k, [])) for k in CHANGES}

    def as_dict(self) -> dict[str, Any]:
        return {"rejudge_id": self.rejudge_id, "critic": self.critic, "models": self.models,
                "judged": self.judged, "skipped": self.skipped, "distinct": self.distinct,
                "counts": self.counts(), "changes": self.changes}  # fmt: skip


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def _pages(copies: Sequence[dict[str, Any]]) -> Iterator[tuple[Page, list[tuple[int, Form]]]]:
    """The stored copies grouped by (run, page) as the crawl judged them: a page and
    its (form_id, form) pairs; copies whose HTML holds no form are left out. A page
    carries the topics its copies' verdicts read (``Page.topics``), as the crawl judged
    with them; without them (an older catalogue) the critic scores the title."""
    from formhunter.trainers.packs import form_from_html

    usual: dict[tuple[int, str], Counter[str]] = {}
    for c in copies:
        if c["page_topics"]:
            usual.setdefault((int(c["run_id"]), str(c["page_url"])), Counter())[
                c["page_topics"]] += 1
    key: tuple[int, str, str] | None = None
    page: Page | None = None
    forms: list[tuple[int, Form]] = []
    for c in copies:
        # a copy stored without topics (not searchable then) reads its page's usual ones;
        # a copy the site's evidence revised reads its own
        on_page = usual.get((int(c["run_id"]), str(c["page_url"])))
        raw = c["page_topics"] or (on_page.most_common(1)[0][0] if on_page else "")
        k = (int(c["run_id"]), str(c["page_url"]), raw)
        if k != key:
            if page is not None and forms:
                yield page, forms
            key, forms = k, []
            page = Page(url=c["page_url"], final_url=c["page_url"], status=200, site=c["site"],
                        title=c["page_title"], site_name=c["site_name"], nav=c["nav"],
                        topics=_topics(raw))  # fmt: skip
        form = form_from_html(c["html"] or "", c["page_url"] or "", c["context"])
        if form is not None:
            forms.append((int(c["form_id"]), form))
    if page is not None and forms:
        yield page, forms


def _topics(raw: str | None) -> dict[str, float] | None:
    try:
        topics = json.loads(raw) if raw else None
    except ValueError:
        return None
    if not isinstance(topics, dict):
        return None
    return {str(k): float(v) for k, v in topics.items() if isinstance(v, int | float)}


def judge_copies(copies: Sequence[dict[str, Any]], critic: FormCritic) -> dict[int, Verdict]:
    """The critic's verdict of each stored copy that still parses, by form id."""
    out: dict[int, Verdict] = {}
    batch: list[tuple[Page, list[tuple[int, Form]]]] = []

    def flush() -> None:
        verdicts = critic.judge_many([([f for _, f in forms], page) for page, forms in batch])
        for (_, forms), page_verdicts in zip(batch, verdicts, strict=True):
            for (fid, _), v in zip(forms, page_verdicts, strict=True):
                out[fid] = v
        batch.clear()

    for item in _pages(copies):
        batch.append(item)
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    return out


def _change(old: dict[str, Any], new: Verdict) -> list[str]:
    kinds = []
    if new.relevant and not old["relevant"]:
        kinds.append("newly_relevant")
    if old["relevant"] and not new.relevant:
        kinds.append("no_longer_relevant")
    if bool(old["searchable"]) != new.searchable or (
            new.searchable and (old["domain"] or "") != new.domain):  # fmt: skip
        kinds.append("domain_changed")
    return kinds


def rejudge(cat: Catalogue, make_critic: Callable[[str], FormCritic], *,
            critic: str) -> Rejudging:  # fmt: skip
    """Judge every stored copy again with ``make_critic(target domain)`` and record it
    with ``critic`` (its registry name) and the models it judged with
    (``FormCritic.models``)."""
    con = cat.con
    started = now()
    copies = _rows(con, _COPIES_SQL)
    before = {int(r["form_id"]): r for r in _rows(con, verdicts_sql(Schema(con)))}
    critics: dict[str, FormCritic] = {}
    verdicts: dict[int, Verdict] = {}
    by_domain: dict[str, list[dict[str, Any]]] = {}
    for c in copies:
        by_domain.setdefault(str(c["run_domain"] or ""), []).append(c)
    for domain, group in by_domain.items():
        critics[domain] = make_critic(domain)
        verdicts.update(judge_copies(group, critics[domain]))
    rejudge_id = int(con.execute(
        "SELECT coalesce(max(rejudge_id), 0) + 1 FROM rejudgings").fetchall()[0][0])  # fmt: skip
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    for c in copies:
        key = (c["site"], c["signature"])
        if key not in newest or c["form_id"] > newest[key]["form_id"]:
            newest[key] = c
    models = next(iter(critics.values())).models() if critics else {}
    report = Rejudging(rejudge_id, critic, models, len(verdicts), len(copies) - len(verdicts),
                       len(newest), {k: [] for k in CHANGES})  # fmt: skip
    for c in sorted(newest.values(), key=lambda r: (r["site"], r["form_id"])):
        fid = int(c["form_id"])
        if fid not in verdicts:
            continue
        old, new = before[fid], verdicts[fid]
        for kind in _change(old, new):
            report.changes[kind].append({
                "form_id": fid, "site": c["site"], "action_url": c["action_url"],
                "page_url": c["page_url"], "run_domain": c["run_domain"],
                "old_domain": old["domain"] or "", "old_score": old["domain_score"],
                "old_relevant": bool(old["relevant"]), "new_domain": new.domain,
                "new_score": new.domain_score, "new_relevant": new.relevant,
            })  # fmt: skip
    _record(con, report, started, verdicts, before)
    return report


def _record(con: duckdb.DuckDBPyConnection, report: Rejudging, started: Any,
            verdicts: dict[int, Verdict], before: dict[int, dict[str, Any]]) -> None:  # fmt: skip
    import pyarrow as pa

    ids = sorted(verdicts)
    old = [before[i] for i in ids]
    new = [verdicts[i] for i in ids]
    table = pa.table({
        "rejudge_id": pa.array([report.rejudge_id] * len(ids), pa.int32()),
        "form_id": pa.array(ids, pa.int64()),
        "searchable": [v.searchable for v in new],
        "searchable_score": pa.array([v.searchable_score for v in new], pa.float64()),
        "domain": pa.array([v.domain for v in new], pa.string()),
        "domain_score": pa.array([v.domain_score for v in new], pa.float64()),
        "relevant": [v.relevant for v in new],
        "prev_searchable": pa.array([o["searchable"] for o in old], pa.bool_()),
        "prev_domain": pa.array([o["domain"] for o in old], pa.string()),
        "prev_domain_score": pa.array([o["domain_score"] for o in old], pa.float64()),
        "prev_relevant": pa.array([o["relevant"] for o in old], pa.bool_()),
    })  # fmt: skip
    summary = {"judged": report.judged, "skipped": report.skipped, "distinct": report.distinct,
               **report.counts()}  # fmt: skip
    con.execute("BEGIN TRANSACTION")
    try:
        insert_arrow(con, "form_verdicts", table)
        con.execute("INSERT INTO rejudgings VALUES (?, ?, ?, ?, ?, ?)",
                    [report.rejudge_id, started, now(), report.critic,
                     json.dumps(report.models, default=str), json.dumps(summary)])  # fmt: skip
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def changes_of(con: duckdb.DuckDBPyConnection, rejudge_id: int) -> dict[str, Any]:
    """A recorded re-judging: its row and its changes per distinct form (as ``rejudge``
    reported them), for the web page."""
    rows = _rows(con, f"SELECT * FROM rejudgings WHERE rejudge_id = {int(rejudge_id)}")
    if not rows:
        raise LookupError(f"no re-judging {rejudge_id}")
    info = rows[0]
    info["models"] = json.loads(info["models"] or "{}")
    info["summary"] = json.loads(info["summary"] or "{}")
    changed = _rows(con, f"""
        SELECT v.form_id, f.site, f.action_url, f.page_url, r.domain AS run_domain,
               coalesce(v.prev_domain, '') AS old_domain, v.prev_domain_score AS old_score,
               v.prev_relevant AS old_relevant, v.prev_searchable AS old_searchable,
               v.domain AS new_domain, v.domain_score AS new_score,
               v.relevant AS new_relevant, v.searchable AS new_searchable
        FROM form_verdicts v JOIN forms f USING (form_id) JOIN runs r ON r.run_id = f.run_id
        WHERE v.rejudge_id = {int(rejudge_id)}
          AND v.form_id IN (SELECT max(form_id) FROM forms GROUP BY site, signature)
        ORDER BY f.site, v.form_id""")  # fmt: skip
    changes: dict[str, list[dict[str, Any]]] = {k: [] for k in CHANGES}
    for c in changed:
        old = {"searchable": c["old_searchable"], "domain": c["old_domain"],
               "relevant": c["old_relevant"]}  # fmt: skip
        new = Verdict(bool(c["new_searchable"]), 0.0, c["new_domain"] or "",
                      float(c["new_score"] or 0.0), bool(c["new_relevant"]))  # fmt: skip
        for kind in _change(old, new):
            changes[kind].append(c)
    return {"rejudging": info, "changes": changes}


def rejudgings(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every recorded re-judging, newest first (none in an older file)."""
    if not Schema(con).rejudgings:
        return []
    rows = _rows(con, "SELECT * FROM rejudgings ORDER BY rejudge_id DESC")
    for r in rows:
        r["models"] = json.loads(r["models"] or "{}")
        r["summary"] = json.loads(r["summary"] or "{}")
    return rows
