"""Report files of the benchmarks: markdown tables, parquet curves, PNG plots, JSON.

``write_harvest(result, out)`` writes into ``out``:

- ``report.md``: one table per domain (mean ± sd over repeats), the web's totals;
  with several webs first the table over webs (``webs_table``: per web the mean over
  repeats, then mean ± sd over webs) and the totals of every web;
  the "Paper claims vs formhunter" section (``claims``) and the plots' paths;
- ``runs.csv``: one row per run with every figure of ``harvest.metrics`` and the run's
  own: wall and crawl seconds, pages/s, learning iterations, end reason, faults, fetch
  errors, ``requeued`` (fetches that failed for a transient reason, their link queued
  again: ``[frontier] requeue_failed``);
- ``curves.parquet``: strategy, domain, repeat, seq, relevant_so_far (truth),
  relevant_critic_so_far, searchable_so_far (truth), searchable_critic_so_far,
  on_topic (truth), on_topic_critic;
- ``harvest-<domain>.png`` per domain and ``harvest-grid.png``: relevant forms
  (truth) against pages fetched, one line per strategy (mean, band = ± sd);
  with several webs also ``harvest-webs.png``: ratio to omniscient and to the keyword
  reference per domain and strategy (mean over webs, error bar = sd);
  ``harvest-sites.png``: site coverage per domain and strategy (``plot_sites``).

``report.md`` opens with the site coverage table (``sites_table``): site coverage
beside forms found, mean ± sd over webs and the sd over repeats.

Plots use matplotlib's Agg backend (no display needed).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from formhunter.bench.harvest import HarvestResult

log = logging.getLogger(__name__)

#: Table columns: (header, runs.csv column, format).
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("pages", "pages", "{:.0f}"),
    ("relevant (truth)", "relevant", "{:.1f}"),
    ("relevant (critic)", "relevant_critic", "{:.1f}"),
    ("searchable (truth)", "searchable", "{:.1f}"),
    ("HR relevant %", "harvest_relevant", "{:.2%}"),
    ("HR searchable %", "harvest_searchable", "{:.2%}"),
    ("loss rate", "loss_rate", "{:.1%}"),
    ("sites w/ relevant", "sites_relevant", "{:.1f}"),
    ("site coverage", "site_coverage", "{:.2f}"),
    ("form sites entered w/o one", "form_sites_entered_without", "{:.1f}"),
    ("pages per form site", "pages_per_form_site", "{:.0f}"),
    ("ratio to omniscient", "ratio_omniscient", "{:.2f}"),
    ("ratio to keyword", "ratio_keyword", "{:.2f}"),
    ("wall s", "wall_s", "{:.1f}"),
    ("learning iter.", "learning_iterations", "{:.1f}"),
)
PAPER_GAIN = (0.34, 5.85)  # ACHE: online learning vs baseline, more relevant forms
PAPER_LOSS_CUT = (0.30, 0.90)  # apprentice: fewer off-topic pages
PAPER_CFC_SAVED = 0.30  # CFC: fewer pages at about the baseline's harvest rate


def _cell(values: pd.Series, fmt: str) -> str:
    v = pd.to_numeric(values, errors="coerce").dropna()
    if v.empty:
        return "–"
    text = fmt.format(v.mean()).replace("%", "")
    if len(v) > 1:
        sd = fmt.format(v.std(ddof=1)).replace("%", "")
        text += f" ± {sd}"
    return text


def order_strategies(names: Sequence[str]) -> list[str]:
    """omniscient first, then the rest in their given order, keyword and random last."""
    names = list(dict.fromkeys(names))
    tail = [n for n in ("keyword", "random") if n in names]
    mid = [n for n in names if n not in ("omniscient", *tail)]
    return (["omniscient"] if "omniscient" in names else []) + mid + tail


#: Columns of the table over webs: (header, runs.csv column, format).
WEB_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("relevant (truth)", "relevant", "{:.1f}"),
    ("share of web's relevant", "share_of_web", "{:.2f}"),
    ("site coverage", "site_coverage", "{:.2f}"),
    ("ratio to omniscient", "ratio_omniscient", "{:.2f}"),
    ("ratio to keyword", "ratio_keyword", "{:.2f}"),
    ("pages used", "pages", "{:.0f}"),
    ("learning iter.", "learning_iterations", "{:.1f}"),
)


def per_web(runs: pd.DataFrame, domain: str, strategy: str, col: str) -> pd.Series:
    """One value per web: the mean of ``col`` over that web's repeats (nan dropped)."""
    r = runs[(runs["domain"] == domain) & (runs["strategy"] == strategy)]
    if col not in r or r.empty:
        return pd.Series(dtype=float)
    v = pd.to_numeric(r[col], errors="coerce")
    webs = r["web"] if "web" in r else pd.Series(0, index=r.index)
    return v.groupby(webs).mean().dropna()


def repeat_sd(runs: pd.DataFrame, domain: str, strategy: str, col: str) -> float:
    """The spread between repeats: per web the sd of ``col`` over its repeats, averaged
    over the webs with two or more repeats (nan when none has)."""
    r = runs[(runs["domain"] == domain) & (runs["strategy"] == strategy)]
    if col not in r or r.empty:
        return math.nan
    v = pd.to_numeric(r[col], errors="coerce")
    webs = r["web"] if "web" in r else pd.Series(0, index=r.index)
    sd = v.groupby(webs).std(ddof=1).dropna()
    return float(sd.mean()) if len(sd) else math.nan


#: Columns of the site table: (header, runs.csv column, format).
SITE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("relevant (truth)", "relevant", "{:.1f}"),
    ("ratio to omniscient", "ratio_omniscient", "{:.2f}"),
    ("sites w/ relevant", "sites_relevant", "{:.1f}"),
    ("form sites entered", "form_sites_entered", "{:.1f}"),
    ("entered w/o one", "form_sites_entered_without", "{:.1f}"),
    ("pages per form site", "pages_per_form_site", "{:.0f}"),
    ("pages per site", "pages_per_site", "{:.1f}"),
)


def sites_table(runs: pd.DataFrame, domains: Sequence[str]) -> str:
    """Markdown table of site coverage (sites with a relevant form found / sites holding
    a findable one) beside forms found, per domain and strategy: per web the mean over
    repeats, then mean ± sd over webs; "sd over repeats" is ``repeat_sd``."""
    head = ("| domain | strategy | form sites | site coverage | sd over repeats | "
            + " | ".join(h for h, _, _ in SITE_COLUMNS) + " |")  # fmt: skip
    lines = [head, "|---|---|" + "---:|" * (3 + len(SITE_COLUMNS))]
    for d in domains:
        dr = runs[runs["domain"] == d]
        for s in order_strategies(dr["strategy"].tolist()):
            rsd = repeat_sd(runs, d, s, "site_coverage")
            cells = [_cell(per_web(runs, d, s, "form_sites"), "{:.1f}"),
                     _cell(per_web(runs, d, s, "site_coverage"), "{:.2f}"),
                     "–" if math.isnan(rsd) else f"{rsd:.2f}",
                     *[_cell(per_web(runs, d, s, c), f) for _, c, f in SITE_COLUMNS]]
            lines.append(f"| {d} | {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def webs_table(runs: pd.DataFrame, domain: str) -> str:
    """Markdown table of one domain over webs: per web the mean over repeats, then
    mean ± sd over the webs (the sd is the spread between webs)."""
    d = runs[runs["domain"] == domain]
    head = "| strategy | " + " | ".join(h for h, _, _ in WEB_COLUMNS) + " |"
    lines = [head, "|---|" + "---:|" * len(WEB_COLUMNS)]
    for s in order_strategies(d["strategy"].tolist()):
        cells = [_cell(per_web(runs, domain, s, c), f) for _, c, f in WEB_COLUMNS]
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def domain_table(runs: pd.DataFrame, domain: str) -> str:
    """Markdown table of one domain: one row per strategy, mean ± sd over repeats."""
    d = runs[runs["domain"] == domain]
    head = "| strategy | " + " | ".join(h for h, _, _ in COLUMNS) + " |"
    sep = "|---|" + "---:|" * len(COLUMNS)
    lines = [head, sep]
    for s in order_strategies(d["strategy"].tolist()):
        r = d[d["strategy"] == s]
        cells = [_cell(r[c], f) if c in r else "–" for _, c, f in COLUMNS]
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _mean(runs: pd.DataFrame, domain: str, strategy: str, col: str) -> float:
    r = runs[(runs["domain"] == domain) & (runs["strategy"] == strategy)]
    v = pd.to_numeric(r[col], errors="coerce").dropna() if col in r else pd.Series(dtype=float)
    return float(v.mean()) if len(v) else math.nan


def _msd(runs: pd.DataFrame, domain: str, strategy: str, col: str) -> str:
    r = runs[(runs["domain"] == domain) & (runs["strategy"] == strategy)]
    return _cell(r[col], "{:.1f}") if col in r else "–"


def _pages_to_reach(curves: pd.DataFrame, domain: str, strategy: str,
                    targets: dict[Any, float]) -> tuple[float, int]:  # fmt: skip
    """Pages ``strategy`` needed to reach each repeat's target count of relevant forms:
    (mean over the repeats that reached it, or nan; repeats that never did). Targets are
    keyed by repeat, or by (web, repeat) when the curves have a web column."""
    c = curves[(curves["domain"] == domain) & (curves["strategy"] == strategy)]
    hits, never = [], 0
    for rep, g in c.groupby(_run_keys(c)):
        target = targets.get(_key(rep), 0)
        if not target:
            continue
        hit = g.loc[g["relevant_so_far"] >= target, "seq"]
        if len(hit):
            hits.append(float(hit.min()))
        else:
            never += 1
    return (float(np.mean(hits)) if hits else math.nan), never


def _run_keys(frame: pd.DataFrame) -> list[str]:
    """Columns that tell the runs of one strategy apart: (web,) repeat."""
    return ["web", "repeat"] if "web" in frame else ["repeat"]


def _key(k: Any) -> int | tuple[int, ...]:
    """A run's key: its repeat, or (web, repeat)."""
    t = tuple(int(x) for x in k) if isinstance(k, tuple) else (int(k),)
    return t[0] if len(t) == 1 else t


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:+.0%}"


def _cut(x: float) -> str:
    """A reduction: "25%" fewer, or "-10%" (more)."""
    return "n/a" if math.isnan(x) else f"{x:.0%}"


def claims(runs: pd.DataFrame, curves: pd.DataFrame, domains: Sequence[str]) -> str:
    """The "Paper claims vs formhunter" section, computed from the runs (truth counts)."""
    have = set(runs["strategy"])
    lines = ["## Paper claims vs formhunter", ""]
    if "baseline" not in have:
        return "\n".join([*lines, "No baseline run: nothing to compare against."])
    online = [s for s in ("ache", "ache-offline-online", "ache-apprentice", "offline")
              if s in have]  # fmt: skip
    lines += [
        f"**Online learning** (ACHE: {PAPER_GAIN[0]:.0%} to {PAPER_GAIN[1]:.0%} more relevant "
        "forms than the baseline). Relevant forms (truth, mean ± sd), change of the mean "
        "against the baseline (``offline``, the fixed FFC link classifier, for comparison):",
        "",
    ]  # fmt: skip
    if online:
        lines += ["| domain | baseline | " + " | ".join(online) + " |",
                  "|---|---:|" + "---:|" * len(online)]  # fmt: skip
    for d in domains if online else ():
        b = _mean(runs, d, "baseline", "relevant")
        cells = []
        for s in online:
            v = _mean(runs, d, s, "relevant")
            cells.append(f"{_msd(runs, d, s, 'relevant')} ({_pct(v / b - 1) if b else 'n/a'})")
        lines.append(f"| {d} | {_msd(runs, d, 'baseline', 'relevant')} | "
                     + " | ".join(cells) + " |")  # fmt: skip
    if not online:
        lines.append("(no online-learning strategy was run)")
    lines += ["", f"**Apprentice** (Chakrabarti et al.: {PAPER_LOSS_CUT[0]:.0%} to "
              f"{PAPER_LOSS_CUT[1]:.0%} fewer off-topic pages). Off-topic pages fetched (truth), "
              "same budget:", ""]  # fmt: skip
    if "ache-apprentice" in have:
        lines += ["| domain | baseline | ache | ache-apprentice | cut vs baseline | cut vs ache |",
                  "|---|---:|---:|---:|---:|---:|"]  # fmt: skip
        for d in domains:
            b = _mean(runs, d, "baseline", "off_topic_pages")
            a = _mean(runs, d, "ache", "off_topic_pages")
            p = _mean(runs, d, "ache-apprentice", "off_topic_pages")
            cut_b = _cut(1 - p / b) if b else "n/a"
            cut_a = _cut(1 - p / a) if a and not math.isnan(a) else "n/a"
            lines.append(f"| {d} | {b:.0f} | {a:.0f} | {p:.0f} | {cut_b} | {cut_a} |")
    else:
        lines.append("(ache-apprentice was not run)")
    lines += ["", f"**CFC URL scorer** (Dhuliawala et al.: harvest rate within a few percent of "
              f"the baseline with about {PAPER_CFC_SAVED:.0%} fewer pages). Harvest rate (truth) "
              "against the baseline, and pages CFC needed to reach the baseline's final count of "
              "relevant forms:", ""]  # fmt: skip
    if "cfc" in have:
        lines += ["| domain | HR baseline | HR cfc | change | baseline pages | cfc pages to "
                  "reach | pages saved | links sunk (learner) |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
        for d in domains:
            hb = _mean(runs, d, "baseline", "harvest_relevant")
            hc = _mean(runs, d, "cfc", "harvest_relevant")
            rb = runs[(runs["domain"] == d) & (runs["strategy"] == "baseline")]
            keys = zip(*(rb[k] for k in _run_keys(rb)), strict=True)
            targets = {_key(tuple(k)): float(v) for k, v in zip(keys, rb["relevant"],
                                                                strict=True)}  # fmt: skip
            pb, _ = _pages_to_reach(curves, d, "baseline", targets)
            pc, never = _pages_to_reach(curves, d, "cfc", targets)
            saved = 1 - pc / pb if pb and not math.isnan(pc) and not never else math.nan
            reach = "never" if math.isnan(pc) else f"{pc:.0f}"
            if never and not math.isnan(pc):
                reach += f" ({never} repeat(s) never)"
            sunk = _sunk(runs, d)
            lines.append(
                f"| {d} | {hb:.2%} | {hc:.2%} | {_pct(hc / hb - 1) if hb else 'n/a'} | "
                f"{'n/a' if math.isnan(pb) else f'{pb:.0f}'} | {reach} | {_cut(saved)} | "
                f"{sunk} |"
            )
    else:
        lines.append("(cfc was not run)")
    return "\n".join(lines)


def _sunk(runs: pd.DataFrame, domain: str) -> str:
    r = runs[(runs["domain"] == domain) & (runs["strategy"] == "cfc")]
    vals = []
    for e in r.get("extras", pd.Series(dtype=str)).fillna(""):
        if e:
            s = json.loads(e).get("cfc_savings", {})
            if "fetches_saved" in s:
                vals.append(s["fetches_saved"])
    return f"{np.mean(vals):.0f}" if vals else "–"


# -- plots -----------------------------------------------------------------------


def _band(curves: pd.DataFrame, strategy: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(seq, mean, sd) of relevant_so_far over repeats; a shorter run keeps its last value."""
    c = curves[curves["strategy"] == strategy]
    n = int(c["seq"].max())
    rows = []
    for _, g in c.groupby(_run_keys(c)):
        y = g.sort_values("seq")["relevant_so_far"].to_numpy(dtype=float)
        rows.append(np.pad(y, (0, n - len(y)), mode="edge") if len(y) else np.zeros(n))
    m = np.vstack(rows)
    return np.arange(1, n + 1), m.mean(axis=0), m.std(axis=0, ddof=1) if len(rows) > 1 else 0 * m[0]


def _draw(ax: Any, curves: pd.DataFrame, domain: str) -> None:
    c = curves[curves["domain"] == domain]
    for s in order_strategies(c["strategy"].tolist()):
        x, y, sd = _band(c, s)
        style = {"omniscient": dict(color="black", linestyle="--"),
                 "keyword": dict(color="tab:brown", linestyle="-."),
                 "random": dict(color="grey", linestyle=":")}.get(s, {})  # fmt: skip
        line = ax.plot(x, y, label=s, linewidth=1.6, **style)[0]
        if np.any(sd > 0):
            ax.fill_between(x, y - sd, y + sd, color=line.get_color(), alpha=0.18, linewidth=0)
    ax.set_title(domain)
    ax.set_xlabel("pages fetched")
    ax.set_ylabel("relevant forms (truth)")
    ax.grid(alpha=0.3)


def plot(curves: pd.DataFrame, domains: Sequence[str], out: Path) -> list[Path]:
    """One PNG per domain and a grid of all; returns the paths (none, with a warning,
    without matplotlib: it comes with the ``bench`` extra)."""
    try:
        import matplotlib
    except ImportError:
        log.warning("no plots: matplotlib is not installed (pip install 'formhunter[bench]')")
        return []

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    for d in domains:
        fig, ax = plt.subplots(figsize=(6.4, 4.4), dpi=110)
        _draw(ax, curves, d)
        ax.legend(fontsize=8, loc="upper left")
        fig.tight_layout()
        p = out / f"harvest-{d}.png"
        fig.savefig(p)
        plt.close(fig)
        paths.append(p)
    cols = min(3, len(domains))
    rows = math.ceil(len(domains) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.0 * rows), dpi=100, squeeze=False)
    for i, d in enumerate(domains):
        _draw(axes[i // cols][i % cols], curves, d)
    for j in range(len(domains), rows * cols):
        axes[j // cols][j % cols].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(8, len(labels)), fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    p = out / "harvest-grid.png"
    fig.savefig(p)
    plt.close(fig)
    return [*paths, p]


def plot_webs(runs: pd.DataFrame, domains: Sequence[str], out: Path) -> Path:
    """``harvest-webs.png``: ratio to omniscient and to keyword per domain and strategy,
    bars = mean over webs, error bars = sd over webs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [s for s in order_strategies(runs["strategy"].tolist()) if s != "omniscient"]
    fig, axes = plt.subplots(2, 1, figsize=(max(6.4, 1.3 * len(domains) * 1.6), 7.2), dpi=100)
    width = 0.8 / max(len(names), 1)
    for ax, col, ref in zip(axes, ("ratio_omniscient", "ratio_keyword"),
                            ("omniscient", "keyword"), strict=True):  # fmt: skip
        for i, s in enumerate(names):
            vals = [per_web(runs, d, s, col) for d in domains]
            m = [float(v.mean()) if len(v) else np.nan for v in vals]
            sd = [float(v.std(ddof=1)) if len(v) > 1 else 0.0 for v in vals]
            x = np.arange(len(domains)) + (i - (len(names) - 1) / 2) * width
            ax.bar(x, m, width, yerr=sd, label=s, capsize=2)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(np.arange(len(domains)), list(domains))
        ax.set_ylabel(f"relevant / {ref}")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8, ncol=min(4, len(names)))
    axes[0].set_title("mean ± sd over simulated webs")
    fig.tight_layout()
    p = out / "harvest-webs.png"
    fig.savefig(p)
    plt.close(fig)
    return p


def plot_sites(runs: pd.DataFrame, domains: Sequence[str], out: Path) -> Path | None:
    """``harvest-sites.png``: site coverage per domain and strategy (bars = mean over
    webs of each web's mean over repeats, error bars = sd over webs; dots = single
    runs, so the spread between repeats shows); None without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if "site_coverage" not in runs:
        return None
    names = order_strategies(runs["strategy"].tolist())
    fig, ax = plt.subplots(figsize=(max(6.4, 1.3 * len(domains) * 1.6), 4.4), dpi=100)
    width = 0.8 / max(len(names), 1)
    for i, s in enumerate(names):
        vals = [per_web(runs, d, s, "site_coverage") for d in domains]
        m = [float(v.mean()) if len(v) else np.nan for v in vals]
        sd = [float(v.std(ddof=1)) if len(v) > 1 else 0.0 for v in vals]
        x = np.arange(len(domains)) + (i - (len(names) - 1) / 2) * width
        ax.bar(x, m, width, yerr=sd, label=s, capsize=2, alpha=0.85)
        for j, d in enumerate(domains):
            r = runs[(runs["domain"] == d) & (runs["strategy"] == s)]
            y = pd.to_numeric(r["site_coverage"], errors="coerce").dropna()
            ax.plot(np.full(len(y), x[j]), y, ".", color="black", markersize=2.5)
    ax.axhline(0.9, color="black", linewidth=0.8, linestyle=":")
    ax.set_xticks(np.arange(len(domains)), list(domains))
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("site coverage")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncol=min(5, len(names)), loc="lower left")
    ax.set_title("sites with a relevant form found / sites holding one "
                 "(mean ± sd over webs; dots: runs)")
    fig.tight_layout()
    p = out / "harvest-sites.png"
    fig.savefig(p)
    plt.close(fig)
    return p


# -- the harvest report --------------------------------------------------------------


def offline_sources(domains: Sequence[str]) -> dict[str, str]:
    """Where each domain's shipped offline link classifier was built from (its manifest)."""
    from formhunter.trainers import offline_dir

    out = {}
    for d in domains:
        p = offline_dir(d) / "manifest.json"
        try:
            m = json.loads(p.read_text(encoding="utf-8"))
            out[d] = f"{m.get('source', '?')} ({m.get('metrics', {}).get('instances')} links)"
        except (OSError, ValueError):
            out[d] = f"none in {p.parent}"
    return out


def harvest_markdown(result: HarvestResult, plots: Sequence[Path] = ()) -> str:
    plan = result.plan
    runs, curves = result.runs_frame(), result.curves_frame()
    webs = plan.web_seeds()
    lines = [
        "# Harvest benchmark", "",
        f"Simulated web seed(s) {', '.join(map(str, webs))}, {plan.sites} sites; "
        f"budget {plan.pages} pages; "
        f"{plan.repeats} repeat(s) with {plan.seeds_per_domain} seeds per domain "
        "(same seeds for every strategy of a repeat); proxy on loopback, no politeness delay, "
        f"concurrency {plan.concurrency}; learning threshold "
        f"{plan.learning_threshold or 'as in the settings'}"
        f"{f'; settings file {plan.config}' if plan.config else ''}. "
        f"Total {result.seconds / 60:.1f} min."
        + (" **Interrupted: partial results.**" if result.interrupted else "")
        + (f" Merged from parts run apart; {result.replaced} runs of earlier parts were "
           "replaced by later ones." if result.replaced else ""), "",
        "Relevant (truth) = distinct forms (site + signature) that the ground truth labels "
        "relevant for the domain; relevant (critic) = what the crawler's critic believed. "
        "HR = harvest rate (forms / pages fetched); loss rate = share of fetched pages not "
        "about the domain (truth); ratio to omniscient = relevant (truth) / the omniscient "
        "crawler's relevant forms after the same number of pages; ratio to keyword = "
        "relevant (truth) / the keyword best-first reference's (no learning) on the same "
        "seeds. Mean ± sd over repeats.", "",
    ]  # fmt: skip
    if "site_coverage" in runs:
        lines += ["## Site coverage", "",
                  "Site coverage = sites where a relevant form (truth) was found / sites "
                  "holding a findable relevant form (form sites). Per web the mean over "
                  "repeats, then mean ± sd over webs; sd over repeats = the sd between the "
                  "repeats of one web, averaged over webs. Entered w/o one = form sites the "
                  "crawl fetched pages of without finding a relevant form there; pages per "
                  "form site = pages fetched on the form sites it entered / those sites.", "",
                  sites_table(runs, plan.domains), ""]  # fmt: skip
    if len(webs) > 1:
        lines += ["## Over webs", "",
                  "Per web the mean over repeats, then mean ± sd over the webs. Share of web's "
                  "relevant = relevant (truth) / the findable relevant forms of that web.", ""]
        for d in plan.domains:
            held = ", ".join(
                f"web {w}: {result.web_totals.get(w, {}).get(d, {}).get('relevant_forms', '?')}"
                for w in webs
            )
            lines += [f"### {d}", "", f"Findable relevant forms: {held}.", "",
                      webs_table(runs, d), ""]  # fmt: skip
        lines += ["## All runs pooled (totals: the first web's)", ""]
    for d in plan.domains:
        t = result.totals.get(d, {})
        lines += [f"## {d}", "",
                  f"The web holds {t.get('relevant_forms', '?')} findable relevant forms "
                  f"({t.get('searchable_forms', '?')} searchable forms of any domain) on "
                  f"{t.get('on_topic_pages', '?')} pages about {d} out of {t.get('pages', '?')}.",
                  "", domain_table(runs, d), ""]  # fmt: skip
        faults = pd.to_numeric(runs.get("faults", pd.Series(0, index=runs.index)), errors="coerce")
        bad = runs[(runs["domain"] == d) & (faults > 0)]
        if len(bad):
            lines += [f"Component faults in: {', '.join(sorted(set(bad['strategy'])))}.", ""]
    if {"offline", "ache-offline-online"} & set(plan.strategies):
        lines += ["## Offline link models", "",
                  *[f"- {d}: {src}" for d, src in offline_sources(plan.domains).items()], ""]
    if result.failures:
        lines += ["## Runs that failed", ""] + [f"- {f}" for f in result.failures] + [""]
    lines += [claims(runs, curves, plan.domains), ""]
    if plots:
        # the plots sit beside the report: their names are links from it
        lines += ["## Plots", ""] + [f"- [{Path(p).name}]({Path(p).name})" for p in plots] + [""]
    return "\n".join(lines)


def write_harvest(result: HarvestResult, out: Path) -> dict[str, Path]:
    """Write the harvest report files (module doc) into ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    runs, curves = result.runs_frame(), result.curves_frame()
    paths = {"runs": out / "runs.csv", "curves": out / "curves.parquet",
             "report": out / "report.md", "seeds": out / "seeds.json",
             "run": out / "run.json"}  # fmt: skip
    runs.to_csv(paths["runs"], index=False)
    curves.to_parquet(paths["curves"], index=False)
    paths["seeds"].write_text(json.dumps(result.seeds, indent=1), encoding="utf-8")
    from formhunter.bench.harvest import plan_record

    paths["run"].write_text(json.dumps(plan_record(result), indent=1), encoding="utf-8")
    plots = plot(curves, result.plan.domains, out) if len(curves) else []
    if len(result.plan.web_seeds()) > 1 and len(runs):
        plots.append(plot_webs(runs, result.plan.domains, out))
    sites_png = plot_sites(runs, result.plan.domains, out) if len(runs) else None
    if sites_png is not None:
        plots.append(sites_png)
    for p in plots:
        paths[p.stem] = p
    paths["report"].write_text(harvest_markdown(result, plots), encoding="utf-8")
    return paths
