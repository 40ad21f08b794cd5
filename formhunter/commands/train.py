"""``formhunter train searchable|domain|context|page|link``: fit a model and report on it.

One multi-class domain model serves every domain: it is trained on all packs in
domains/ (plus ``_other`` as negatives), and the critic calls a form relevant
when its best domain is the crawl's ``--domain``. ``--domain NAME`` checks that
pack NAME exists and has enough labelled forms before training.

``context`` trains the critic's second stage (the domain from the form, its page and its
site: ``classifiers.context``) on the real forms' out-of-fold domain probabilities and
their pages' topic scores. ``page`` trains a domain's page classifier (Pr(topic |
page)) from the real pages and its pack with a site-grouped CV report on the real
pages (``--domain all``: every domain); ``link`` builds the offline multi-level link
classifier (the FFC's, used by the ``offline`` and ``ache-offline-online``
strategies) from backward paths to known relevant-form pages of a link graph:
an earlier crawl's catalogue, a simulated web, or link/form tables in files.

Models are kept in the user model directory (``--models DIR``; default
``$FORMHUNTER_MODELS``, else ``~/.local/share/formhunter/models``), never over the
shipped ones in data/models nor over a model trained before: each gets a name of
its own, the time it was made and its data's hash (``<models>/domain/20261128-021500-
1a2b3c4d``; ``formhunter models list``). ``crawl``, ``judge``, ``serve`` and
``rejudge`` use the newest unless ``--model NAME`` names another
(``classifiers.persist.model_path``). ``--out`` names one model's directory exactly.
``train domain --from-catalogue FILE`` adds the labels users
gave in a catalogue (``formhunter serve``) to the packs and prints the forms the
new model is least sure of: the next ones worth labelling.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from formhunter.commands._args import count, number
from formhunter.exceptions import UsageError


def models_root(args: argparse.Namespace) -> Path:
    """The model directory ``train`` writes under: ``--models`` or the user one."""
    from classifiers.persist import user_models_dir

    return Path(args.models).expanduser() if getattr(args, "models", None) else user_models_dir()


@contextmanager
def kept_model(args: argparse.Namespace, relative: str | Path) -> Iterator[KeptModel]:
    """Where to write a model: ``--out`` exactly (and ``--models data/models``: the
    shipped layout), else a fresh directory that is kept under its own name once
    written (``classifiers.persist.keep_model``); a failed training leaves nothing."""
    from classifiers.persist import DEFAULT_MODELS, keep_model, new_model_dir

    root = models_root(args)
    if getattr(args, "out", None) or root.resolve() == DEFAULT_MODELS.resolve():
        # --out, or the shipped models rebuilt in place (git keeps their history)
        kept = KeptModel(Path(args.out) if getattr(args, "out", None) else root / relative)
        yield kept
        kept.final = kept.out
        return
    kept = KeptModel(new_model_dir(root, relative))
    try:
        yield kept
    except BaseException:
        shutil.rmtree(kept.out, ignore_errors=True)
        raise
    kept.final = keep_model(kept.out, root, relative)


@dataclass
class KeptModel:
    """``out``: the directory to write into; ``final``: where the model is kept."""

    out: Path
    final: Path | None = None


def warn_small(counts: dict[str, int], only: str | None = None) -> None:
    """Warn (stderr) about domains with too few labelled forms for figures to mean much."""
    from classifiers.domain import MIN_FORMS, RECOMMENDED_FORMS

    for label, n in sorted(counts.items()):
        if (only is None or label == only) and MIN_FORMS <= n < RECOMMENDED_FORMS:
            print(f"warning: domain {label!r} has {n} labelled forms; with fewer than "
                  f"{RECOMMENDED_FORMS} its cross-validated figures mean little (a few forms "
                  "more or less swing them): add forms to its pack", file=sys.stderr)  # fmt: skip


def _print_metrics(metrics: dict[str, Any], out: Path | None) -> None:
    keep = {k: v for k, v in metrics.items() if k not in ("per_label", "confusion")}
    print(json.dumps(keep, indent=2, default=str))
    if "per_label" in metrics:
        for label, m in metrics["per_label"].items():
            print(f"  {label:<12} P={m['precision']:.3f} R={m['recall']:.3f} "
                  f"F1={m['f1']:.3f} n={m['support']}")  # fmt: skip
    if out is not None:
        print(f"model written to {out}")
        if out.parent.name in ("searchable", "domain") or out.parent.parent.name == "link":
            print(f"model name: {out.name} (earlier models are kept: formhunter models "
                  "list; use one with --model NAME)")  # fmt: skip


def run_searchable(args: argparse.Namespace) -> int:
    from classifiers.searchable import LEARNERS
    from formhunter.trainers.critic import train_searchable_model

    if args.learner not in LEARNERS:
        raise UsageError(f"--learner must be one of {', '.join(LEARNERS)}")
    params: dict[str, Any] = {"learner": args.learner}
    if args.max_depth is not None:
        params["max_depth"] = args.max_depth or None
    if args.min_samples_leaf is not None:
        params["min_samples_leaf"] = args.min_samples_leaf
    with kept_model(args, "searchable") as kept:
        _, metrics = train_searchable_model(
            kept.out, data=args.data, packs=not args.no_packs, domains_dir=args.domains_dir,
            n_splits=args.folds, **params,
        )  # fmt: skip
    _print_metrics(metrics, kept.final)
    return 0


def run_domain(args: argparse.Namespace) -> int:
    from formhunter.trainers.critic import train_domain_model

    params: dict[str, Any] = {}
    if args.C is not None:
        params["C"] = args.C
    with kept_model(args, "domain") as kept:
        if args.from_catalogue:
            from formhunter.trainers.labels import train_with_labels

            model, metrics = train_with_labels(args.from_catalogue, kept.out,
                                               root=args.domains_dir, require=args.domain,
                                               n_splits=args.folds, **params)  # fmt: skip
        else:
            model, metrics = train_domain_model(
                kept.out, root=args.domains_dir, require=args.domain, n_splits=args.folds,
                **params,
            )  # fmt: skip
    counts = metrics.pop("per_label_n", {})
    _print_metrics(metrics, kept.final)
    warn_small(counts, args.domain)
    if args.from_catalogue:
        print_next_to_label(model, args.from_catalogue, args.suggest)
    return 0


def run_context(args: argparse.Namespace) -> int:
    from classifiers.persist import DEFAULT_MODELS, model_path, read_manifest
    from formhunter.trainers.context import train_context_model

    out = Path(args.out) if args.out else models_root(args) / "context"
    manifest = read_manifest(model_path("domain", args.models))
    params = {k: v for k, v in manifest.get("params", {}).items() if k != "random_state"}
    for key in ("signals", "char_blocks"):
        if key in params:
            params[key] = tuple(tuple(x) if isinstance(x, list) else x for x in params[key])
    _, metrics = train_context_model(out, domain_params=params, n_splits=args.folds,
                                     models_dir=args.models or None)  # fmt: skip
    for name in ("form_only", "with_page"):
        m = metrics[name]
        box = m["keyword_boxes"]
        print(f"{name:<10} macro-F1={m['macro_f1']:.4f} accuracy={m['accuracy']:.4f}  keyword "
              f"boxes: n={box['n']} accuracy={box['accuracy']:.4f} macro-F1={box['macro_f1']:.4f}"
              f" domain recall={box['domain_recall']:.4f} other kept={box['other_kept']:.4f}")
        print("           " + " ".join(f"{k}={v['f1']:.3f}" for k, v in m["per_label"].items()))
    print(f"whole pages: {metrics['whole_pages']} of {metrics['n']}; weights {metrics['coef']}")
    print(f"model written to {out} (ship it: --out {DEFAULT_MODELS / 'context'})")
    return 0


def print_next_to_label(model: Any, db: str, n: int) -> None:
    """The catalogue's unlabelled forms the model is least sure of (active learning)."""
    from formhunter.commands._common import open_catalogue
    from formhunter.trainers.labels import least_sure, unlabelled_forms

    with open_catalogue(db) as cat:
        rows = least_sure(model, unlabelled_forms(cat.con), n)
    if not rows:
        print("no unlabelled searchable form left to suggest")
        return
    print(f"label these next (least sure first; formhunter serve --db {db}):")
    for r in rows:
        print(f"  form {r['form_id']:>6}  {r['best']} {r['best_p']:.2f} / {r['second']} "
              f"{r['second_p']:.2f}  {r['site']}  {r['url']}")  # fmt: skip


def run_page(args: argparse.Namespace) -> int:
    from classifiers.page_classifier import (
        MODELS,
        save_page_classifier,
        train_page_classifier,
    )

    if args.model not in MODELS:
        raise UsageError(f"--model must be one of {', '.join(MODELS)}")
    real = not args.packs_only
    name = args.model if args.packs_only else f"{args.model}-real"
    if args.domain != "all":
        est, metrics = train_page_classifier(args.domain, args.model, args.domains_dir,
                                             n_splits=args.folds, real=real)  # fmt: skip
        out = Path(args.out) if args.out else models_root(args) / "page" / args.domain / name
        save_page_classifier(est, out, domain=args.domain, metrics=metrics, root=args.domains_dir)
        _print_metrics(metrics, out)
        return 0
    # every domain: one site-grouped CV on the real pages serves all the manifests
    from classifiers.page_classifier import (
        CRAWL_PARAMS,
        PageTopicClassifier,
        evaluate_real,
        page_domains,
    )

    cv = evaluate_real(PageTopicClassifier(**{**CRAWL_PARAMS, "model": args.model}),
                       args.domains_dir, n_splits=args.folds)  # fmt: skip
    root = Path(args.out) if args.out else models_root(args) / "page"
    if not real:
        raise UsageError("--domain all trains the classifiers of the real pages; "
                         "drop --packs-only")  # fmt: skip
    for domain in page_domains(args.domains_dir):
        est, metrics = train_page_classifier(domain, args.model, args.domains_dir,
                                             evaluate=False)  # fmt: skip
        if domain in cv["per_label"]:
            metrics.update(real_cv=cv["per_label"][domain], folds=cv["folds"],
                           grouped_by="site", n_sites=cv["n_sites"],
                           offtopic_fp_rate=cv["offtopic_fp_rate"])  # fmt: skip
        out = root / domain / name
        save_page_classifier(est, out, domain=domain, metrics=metrics, root=args.domains_dir)
        real = metrics.get("real_cv", "no real pages outside the frozen split")
        print(f"{domain}: {json.dumps(real)} -> {out}")
    print(f"macro F1 {cv['macro_f1']} over the real pages; off-topic pages called on topic by "
          f"some domain: {cv['offtopic_fp_rate']}")  # fmt: skip
    return 0


def link_graph(args: argparse.Namespace) -> tuple[Any, str]:
    """The link graph ``train link`` crawls backwards over, and a description of it."""
    from formhunter.bench.backlinks import SimWebBacklinks
    from formhunter.trainers import LinkGraph

    sources = [x for x in (args.from_catalogue, args.from_files) if x] + (
        ["simweb"] if args.from_simweb else []
    )
    if len(sources) != 1:
        raise UsageError("give exactly one of --from-catalogue DB, --from-simweb, --from-files DIR")
    if args.from_catalogue:
        graph = LinkGraph.from_catalogue(args.from_catalogue, args.run_id, args.domain)
        run = f" run {args.run_id}" if args.run_id is not None else ""
        return graph, f"catalogue {Path(args.from_catalogue).resolve()}{run}"
    if args.from_files:
        return LinkGraph.from_files(args.from_files, args.domain), f"files {args.from_files}"
    from formhunter.bench.harvest import default_cache_dir
    from formhunter.simweb import SimWeb

    web = SimWeb(seed=args.seed, n_sites=args.sites)
    cache = None if args.no_cache else Path(args.cache or default_cache_dir())
    sim = SimWebBacklinks(web, domain=args.domain, cache_dir=cache,
                          random_state=args.random_state)  # fmt: skip
    return sim, f"simweb seed={args.seed} sites={args.sites}"


def run_link(args: argparse.Namespace) -> int:
    import time

    from formhunter.bench.oracle import DOMAINS
    from formhunter.trainers import build_offline_classifier, save_offline

    if args.from_simweb and args.domain not in DOMAINS:
        raise UsageError(f"unknown domain {args.domain!r} on the simulated web "
                         f"(known: {', '.join(DOMAINS)})")  # fmt: skip
    t0 = time.perf_counter()
    graph, source = link_graph(args)
    targets = list(getattr(graph, "targets", []))
    if not targets:
        raise UsageError(f"the link graph ({source}) knows no page with a relevant "
                         f"{args.domain!r} form")  # fmt: skip
    n = args.features
    model, frame, levels = build_offline_classifier(
        graph, targets, args.levels, max_targets=args.max_targets,
        max_per_level=args.max_per_level, random_state=args.random_state,
        n_url=n, n_anchor=n, n_around=n, min_df=args.min_df, min_sites=args.min_sites,
    )  # fmt: skip
    if args.note:
        source = f"{source}; {args.note}"
    with kept_model(args, Path("link") / args.domain) as kept:
        save_offline(model, frame, levels, kept.out, domain=args.domain, source=source)
    out = kept.final
    print(f"offline link classifier for {args.domain!r} from {source}: {len(targets)} target "
          f"pages, {len(levels)} links ({time.perf_counter() - t0:.1f}s)")  # fmt: skip
    print("instances per level (last = background):", json.dumps(model.n_train_))
    for space, feats in model.features_.items():
        print(f"  {space:<6} {', '.join(feats)}")
    print(f"model written to {out}")
    return 0


def _models_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--models", metavar="DIR",
                   help="user model directory to write under (default: $FORMHUNTER_MODELS, "
                   "else ~/.local/share/formhunter/models; never data/models)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train a model: critic (searchable, domain), page classifier, offline link "
        "classifier",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    targets = p.add_subparsers(dest="target", metavar="TARGET", required=True)

    s = targets.add_parser(
        "searchable",
        help="the searchable-form classifier (formasaurus forms plus the packs' forms)",
        description="Train the searchable-form classifier on data/formasaurus/forms.jsonl.gz "
        "and the domain packs' forms, with GroupKFold-by-site cross-validation scored on "
        "the formasaurus forms; writes model.npz + manifest.json.",
    )
    s.add_argument("--out", help="model directory (default: kept as <models>/searchable/<name>)")
    s.add_argument("--data", help="forms.jsonl.gz to train on (default: data/formasaurus/)")
    s.add_argument("--learner", default="logreg", help="logreg (default), tree or gbm")
    s.add_argument("--no-packs", action="store_true",
                   help="train on formasaurus only (default: the domain packs' forms too)")
    s.add_argument("--domains-dir", help="folder of domain packs (default: domains/)")
    s.add_argument("--max-depth", type=count, default=None, help="tree depth (0 = unlimited)")
    s.add_argument("--min-samples-leaf", type=count, default=None, help="tree leaf size")
    s.add_argument("--folds", type=count, default=5, help="cross-validation folds (default 5)")
    _models_flag(s)
    s.set_defaults(func=run_searchable)

    d = targets.add_parser(
        "domain",
        help="the domain classifier (linear SVM over all domain packs)",
        description="Train the multi-class domain classifier on domains/*/forms.jsonl plus "
        "domains/_other (negatives). One model serves every domain; --domain NAME checks "
        "that pack NAME exists and has enough labelled forms.",
    )
    d.add_argument("--domain", help="domain pack that must be present and trainable")
    d.add_argument("--out", help="model directory (default: kept as <models>/domain/<name>)")
    d.add_argument("--from-catalogue", metavar="FILE",
                   help="also train on the labels users gave in this catalogue (formhunter "
                   "serve), and print the forms the new model is least sure of")
    d.add_argument("--suggest", type=count, default=20, metavar="N",
                   help="with --from-catalogue: forms to suggest labelling next (default 20)")
    d.add_argument("--domains-dir", help="folder of domain packs (default: domains/)")
    d.add_argument("--C", type=number, default=None, help="SVM regularisation (default 0.5)")
    d.add_argument("--folds", type=count, default=5, help="cross-validation folds (default 5)")
    _models_flag(d)
    d.set_defaults(func=run_domain)

    pg = targets.add_parser(
        "page",
        help="a domain's page classifier (Pr(topic | page)) from its domain pack",
        description="Train the page classifier of --domain from the real pages outside the "
        "frozen split (domains/*/pages_real.jsonl) and the packs' pages.jsonl, against "
        "off-topic and other domains' pages, with a site-grouped CV report on the real "
        "pages; writes <models>/page/<domain>/<model>/ (crawls load it instead of training "
        "at start). --domain all trains every domain with one CV.",
    )
    pg.add_argument("--domain", required=True,
                    help="domain pack to train on, or 'all' (one model per domain, one CV)")
    pg.add_argument("--model", default="svm",
                    help="svm (calibrated linear SVM, the crawl default) or nb")  # fmt: skip
    pg.add_argument("--out", help="model directory (default: <models>/page/<domain>/<model>-real; "
                    "with --domain all: the folder holding <domain>/<model>-real)")
    pg.add_argument("--domains-dir", help="folder of domain packs (default: domains/)")
    pg.add_argument("--packs-only", action="store_true",
                    help="train on the packs' pages only (the 'svm'/'nb' page classifiers; "
                    "default: the real pages too, written to <model>-real, the 'real' one)")
    pg.add_argument("--folds", type=count, default=5, help="cross-validation folds (default 5)")
    _models_flag(pg)
    pg.set_defaults(func=run_page)

    cx = targets.add_parser(
        "context",
        help="the critic's second stage: the form's domain from the form, its page and site",
        description="Train the context model (classifiers.context) on the real labelled forms "
        "(the frozen split left out): the domain model's out-of-fold probabilities, the page "
        "classifiers' topic scores over each form's whole page (data/realforms/pages.jsonl.gz)"
        " and whether it is a keyword box; prints the site-grouped CV with and without the "
        "page. Uses the domain model's parameters and the page classifiers of <models>.",
    )
    cx.add_argument("--out", help="model directory (default: <models>/context)")
    cx.add_argument("--folds", type=count, default=5, help="cross-validation folds (default 5)")
    _models_flag(cx)
    cx.set_defaults(func=run_context)

    lk = targets.add_parser(
        "link",
        help="the offline multi-level link classifier from backward paths to relevant forms",
        description="Build the FFC's offline link classifier for --domain: crawl backwards "
        "from pages with known relevant forms over a link graph (level i = i links from a "
        "form page), sample background links, run automatic feature selection and fit the "
        "multi-level naive Bayes; writes model.npz, manifest.json and paths.parquet "
        "(the training paths ache-offline-online starts from). Link graph: an earlier "
        "crawl's catalogue (--from-catalogue), a simulated web (--from-simweb: use another "
        "--seed than the web you benchmark on), or links/forms tables (--from-files).",
    )
    lk.add_argument("--domain", required=True, help="domain whose relevant forms are targets")
    lk.add_argument("--from-catalogue", metavar="DB", help="an earlier crawl's catalogue")
    lk.add_argument("--run-id", type=count, default=None, help="with --from-catalogue: one run")
    lk.add_argument("--from-simweb", action="store_true", help="the simulated web's link graph")
    lk.add_argument("--from-files", metavar="DIR",
                    help="links.{parquet,jsonl,csv} (src_url, dst_url, anchor[, around]) and "
                    "forms.{...} (page_url, relevant or domain)")  # fmt: skip
    lk.add_argument("--seed", type=count, default=8,
                    help="--from-simweb: the web's seed (default 8; benchmarks crawl seed 7)")
    lk.add_argument("--sites", type=count, default=500, help="--from-simweb: sites (default 500)")
    lk.add_argument("--cache", metavar="DIR",
                    help="--from-simweb: truth-graph cache (default ~/.cache/formhunter/bench)")
    lk.add_argument("--no-cache", action="store_true", help="--from-simweb: rebuild the graph")
    lk.add_argument("--out",
                    help="model directory (default: kept as <models>/link/<domain>/<name>)")
    lk.add_argument("--levels", type=count, default=3, help="link levels (default 3)")
    lk.add_argument("--features", type=count, default=25,
                    help="terms per feature space (default 25, as the crawl's learner)")
    lk.add_argument("--min-df", type=count, default=2, help="minimum links per term (default 2)")
    lk.add_argument("--min-sites", type=count, default=2,
                    help="a term must occur on links to >= N sites (default 2)")
    lk.add_argument("--max-targets", type=count, default=None, help="sample this many targets")
    lk.add_argument("--max-per-level", type=count, default=3000,
                    help="links kept per level of the backward crawl (default 3000)")
    lk.add_argument("--random-state", type=count, default=0, help="sampling seed (default 0)")
    lk.add_argument("--note", default="", help="appended to the manifest's source")
    _models_flag(lk)
    lk.set_defaults(func=run_link)
