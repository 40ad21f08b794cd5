"""Settings: one frozen object; defaults < TOML file (``--config``) < command-line flags.

Sections (TOML tables of the same names): ``crawl``, ``fetch`` (``FetchSettings``),
``frontier``, ``sitemaps``, ``stopping``, ``learning``, ``render``, ``parse``, ``tres``,
``warc``, ``probe``. An unknown section or key, or a value of the wrong type, is a ``ConfigError``
naming it. Example::

    [crawl]
    domain = "book"
    max_pages = 20000
    [fetch]
    min_delay = 0.5
    [stopping]
    max_pages_per_site = 50
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from formhunter import __version__
from formhunter.exceptions import ConfigError
from formhunter.setting_values import check_ranges, merge, read_settings_file

#: The product token robots.txt groups are matched against.
ROBOTS_TOKEN = "formhunter"

DEFAULT_USER_AGENT = (
    f"{ROBOTS_TOKEN}/{__version__} "
    "(+https://github.com/formhunter/formhunter; hidden-web entry point crawler)"
)


@dataclass(frozen=True)
class FetchSettings:
    """How the fetcher talks to the Web.

    Times are in seconds, sizes in bytes. ``user_agent`` is sent with every request
    (robots.txt groups match its ``formhunter`` token); ``concurrency`` requests are in
    flight at most, ``per_host_connections`` of them to one host; ``obey_robots``
    follows robots.txt; ``max_redirects`` are followed per request; ``connect_timeout``
    and ``read_timeout`` bound connecting and each read; bodies over ``max_bytes`` are
    cut; only ``allowed_content_types`` are read. ``min_delay`` is the least time between
    the starts of two requests to one host; a robots.txt ``Crawl-delay`` (or
    ``Request-rate``) raises it, but never above ``max_crawl_delay``.
    ``retries`` is the number of extra attempts after a transient failure
    (connect error, 5xx except 501, 429), waiting ``backoff_base`` * 2**n
    (capped at ``backoff_max``) or the server's ``Retry-After`` (if at most
    ``max_retry_after``). ``total_timeout`` bounds one request (connect to last
    byte) against servers that drip bytes. ``robots_ttl`` is how long a fetched
    robots.txt is trusted; ``robots_error_ttl`` how long a host whose robots.txt
    could not be fetched (5xx, timeout, unreachable) stays disallowed before
    robots.txt is tried again. ``dns_ttl`` is how long the address guard keeps a
    resolution. ``proxy`` is an ``http://host:port`` forward proxy for every
    request; ``allow_private`` lifts the address guard (see ``fetch.guard``).
    """

    user_agent: str = DEFAULT_USER_AGENT
    concurrency: int = 32
    per_host_connections: int = 1
    min_delay: float = 1.0
    max_crawl_delay: float = 30.0
    obey_robots: bool = True
    robots_ttl: float = 24 * 3600.0
    robots_error_ttl: float = 600.0
    max_redirects: int = 5
    connect_timeout: float = 10.0
    read_timeout: float = 20.0
    total_timeout: float = 60.0
    max_bytes: int = 5 * 1024 * 1024
    allowed_content_types: tuple[str, ...] = field(
        default=("text/html", "application/xhtml+xml")
    )
    retries: int = 2
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    max_retry_after: float = 120.0
    proxy: str | None = None
    allow_private: bool = False
    dns_ttl: float = 300.0

    def __post_init__(self) -> None:
        if not self.user_agent.strip():
            raise ConfigError("fetch: user_agent must not be empty")
        check_ranges("fetch", self, at_least_one=("concurrency", "per_host_connections"))
        for name in ("connect_timeout", "read_timeout", "total_timeout"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"fetch: {name} must be positive")
        if not self.allowed_content_types:
            raise ConfigError("fetch: allowed_content_types must not be empty")
        object.__setattr__(
            self,
            "allowed_content_types",
            tuple(t.strip().lower() for t in self.allowed_content_types),
        )
        if self.proxy is not None:
            parts = urlsplit(self.proxy)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ConfigError(
                    f"fetch: proxy must look like http://host:port, got {self.proxy!r}"
                )
            try:
                parts.port  # noqa: B018 - raises ValueError on a bad port
            except ValueError as exc:
                raise ConfigError(f"fetch: bad proxy port in {self.proxy!r}") from exc


@dataclass(frozen=True)
class CrawlSettings:
    """The crawl itself.

    ``domain``: the target domain (a pack name: airfare, auto, book, hotel, job, movie,
    music, rental, ...); ``strategy``: a name of ``formhunter.strategies.STRATEGIES``,
    ``ache`` by default, the strategy the harvest benchmarks put first (docs/bench/issue17);
    ``max_pages``: the page budget; ``seeds``: a file of seed URLs, one a line;
    ``db``: the catalogue's DuckDB file.
    ``critic``/``page_classifier``/``scorer``: registry names; "" means the
    strategy's choice. ``commit_every_pages``/``commit_every_seconds``: a commit
    point (everything written, one transaction) after so many pages or seconds,
    whichever comes first. ``snapshot_every_seconds``: at a commit point at least this
    long after the last one, the catalogue is copied to ``<db>.snapshot`` (without the
    frontier), which ``forms``, ``runs``, ``learning``, ``serve`` and ``train`` read while
    the crawl holds the file (DuckDB allows one process per file); 0 = no snapshot; the
    snapshot is removed when the crawl ends. ``max_in_flight``: fetches in flight (0 = the fetch
    concurrency). ``max_seconds``: stop after this wall time (0 = no limit).
    ``random_state`` seeds every random choice of the crawl.
    ``db_memory_mb``: DuckDB's memory limit for the catalogue's connection while a
    crawl holds it, in MB of 2**20 bytes (0: DuckDB's own, 80% of the RAM). DuckDB keeps
    every table block it has read in its buffer pool up to that limit, so without one a
    crawl's memory grows with its frontier (about 1.9 GB of cached blocks after a
    re-rank of 10M links); a query that needs more than the limit spills to
    ``<db>.tmp``. A catalogue smaller than the limit never reaches it, so small crawls
    do not change.
    ``models_dir``: where models are loaded from; "" means the user model directory
    (``$FORMHUNTER_MODELS``, else ``~/.local/share/formhunter/models``: the one default,
    ``classifiers.persist.user_models_dir``) for each model it holds, else data/models.
    ``model``: the domain model to judge with, by name (``formhunter models list``;
    "shipped" is the one in data/models); "" means the newest kept one.
    ``batch_pages``/``batch_seconds``: completed fetches are parsed, classified and
    judged together, as one batch, once ``batch_pages`` are waiting or the first has
    waited ``batch_seconds`` (or nothing else is in flight), so that the models'
    per-call overhead is paid per batch; ``batch_pages = 1`` processes each page as
    it arrives. Larger batches cost latency, not pages: a page's link counts as in
    flight until its batch is recorded. The defaults, 64 pages / 50 ms, measured
    best in ``formhunter bench throughput`` (64 fetches in flight; 32 or 16 pages
    cost 6-15% more CPU per page, no wall time gained).
    ``ordered_block``: record pages in the order their links were handed out (not the
    order their fetches completed), in blocks of so many pages, with at most
    ``max_in_flight`` handed out and not yet recorded (0: completion order, batches as
    above). What a crawl learns, and so which links it takes, then depends on what it
    fetched, not on how fast each fetch came back or how loaded the machine was.
    ``parse_workers``: parse pages in this many worker processes instead of the
    crawl's thread (``formhunter.parse_pool``; not with rendering, which parses in
    its own task); "auto" (the default): one per core this process may use, none on a
    single core; 0: parse in the crawl's thread. Parsing is the crawl's largest CPU
    cost and holds the GIL (lxml's own parse is a third of it on a 100 KB page, the
    walk over the tree in Python the rest), so only processes put it on every core. A
    page then costs the crawl process its body written to a pipe and the parsed page
    unpickled (~0.04 ms for a 100 KB page, whose parse costs ~3.4 ms), and the
    machine ~0.1 ms more in all.
    """

    domain: str = "airfare"
    strategy: str = "ache"
    max_pages: int = 1000
    seeds: str = ""
    db: str = "formhunter.duckdb"
    critic: str = ""
    page_classifier: str = ""
    scorer: str = ""
    models_dir: str = ""
    model: str = ""
    random_state: int = 0
    db_memory_mb: int = 1024
    commit_every_pages: int = 500
    commit_every_seconds: float = 10.0
    snapshot_every_seconds: float = 10.0
    max_in_flight: int = 0
    max_seconds: float = 0.0
    batch_pages: int = 64
    batch_seconds: float = 0.05
    ordered_block: int = 0
    parse_workers: int | str = "auto"

    def __post_init__(self) -> None:
        check_ranges("crawl", self, at_least_one=("max_pages", "commit_every_pages", "batch_pages"))
        if self.commit_every_seconds <= 0:
            raise ConfigError("crawl: commit_every_seconds must be positive")
        if self.parse_workers != "auto" and not (
                isinstance(self.parse_workers, int) and 0 <= self.parse_workers <= 64):
            raise ConfigError('crawl: parse_workers must be "auto" or between 0 and 64')
        if not 0 <= self.batch_seconds <= 10:
            raise ConfigError("crawl: batch_seconds must be between 0 and 10")


@dataclass(frozen=True)
class FrontierSettings:
    """The multi-level frontier and its trap limits.

    ``levels``: scored levels (the frontier adds one for unscored links; a scorer
    with more levels widens it). ``refill_per_level``: links per level taken from
    the persistent frontier when memory runs dry; ``refill_interval``: seconds
    between two refills while memory holds only links of hosts that must wait.
    ``rerank_batch``: rows per batch when the whole frontier is re-scored;
    ``rerank_chunk``: lids a re-rank reads, scores and writes at once (its memory is
    bounded by the chunk, not the frontier: at 1M, some 0.5 GB of link text while links
    are tokenised).
    Trap limits: links longer than ``max_url_length``, deeper than ``max_depth``,
    or whose path repeats one segment more than ``max_repeated_segments`` times
    are skipped; only the first
    ``max_links_per_page`` distinct links of a page are considered.
    ``follow_nofollow``: follow rel=nofollow links (and pages with a robots
    nofollow meta tag); off by default, as a polite crawler does.
    ``reserve``: links the follow policy does not follow (outlinks of off-topic pages
    under "on_topic") are kept in a reserve instead of dropped; when nothing queued is
    left, the reserve is re-scored by the current link scorer and crawled best first,
    so a crawl ends before its budget only when nothing fetchable is left or the site
    limits close what is. On by default: a user with 10 seeds wants the budget used
    (issue 17: five of eight unseen-web crawls ran dry with thousands of links unfollowed).
    ``reserve_by_level``: a link of an off-topic page that the (learned, multi-level)
    link scorer puts on a path level, near a form, is queued at once, and every
    re-rank re-scores the reserve too (ACHE's delayed benefit); the rest wait
    until the reserve is opened.
    ``route_links_per_site``: on a site that looks on-domain (a page on topic, or a
    relevant form found), links whose anchor, URL or nearby words name a search route
    (search, find, advanced search, booking, reservation, catalogue, site map, in many
    languages: ``policy.ROUTES``) go to the first level, ahead of the scorer's ranking,
    at most so many per site (0: off); only for strategies with ``site_limits`` and the
    levels frontier (not keyword best-first, bfs, random or tres).
    ``requeue_failed``: a link whose fetch failed for a transient reason (timeout,
    connection error or reset, a 5xx other than 501, 429: ``policy.TRANSIENT``) goes
    back into the frontier at its level, queued, up to so many times, instead of being
    marked failed; an attempt that failed so is not a page of the budget (0: off).
    Issue 25: under load a crawl lost 5-7% of its fetches to timeouts and with them
    the forms behind them, so the result followed the machine's load.
    """

    levels: int = 3
    refill_per_level: int = 2000
    refill_interval: float = 1.0
    rerank_batch: int = 50_000
    rerank_chunk: int = 1_000_000
    max_url_length: int = 512
    max_depth: int = 30
    max_repeated_segments: int = 2
    max_links_per_page: int = 1000
    follow_nofollow: bool = False
    reserve: bool = True
    # Off (issue 17): a model learned from a dozen paths can put footer and legal-page
    # words on its path levels, and the off-topic links it then queued took 1,400-1,900
    # of 5,000 pages on music (webs 21-24) before the frontier ever ran dry; with it on,
    # [stopping] extend_pages changed nothing there (22 and 16 forms on webs 21 and 23).
    reserve_by_level: bool = False
    requeue_failed: int = 2
    route_links_per_site: int = 10

    def __post_init__(self) -> None:
        check_ranges("frontier", self, at_least_one=(
            "levels", "refill_per_level", "rerank_batch", "rerank_chunk", "max_url_length",
            "max_repeated_segments", "max_links_per_page"))  # fmt: skip


@dataclass(frozen=True)
class SitemapSettings:
    """XML sitemaps named by the ``Sitemap:`` lines of the robots.txt the crawler fetches
    (``fetch.sitemaps``; with ``[fetch] obey_robots``). Their pages join the crawl: those
    whose URL names a search route (``frontier.routes``) are queued, for the route
    policy; the others are placed as the outlinks of an off-topic page are (the reserve,
    under ACHE's follow rule). A robots.txt without a ``Sitemap:`` line costs nothing.

    ``max_per_site``: sitemaps fetched per site at most, those an index names included
    (0: sitemaps off). ``max_depth``: how deep sitemap indexes are followed (0: only the
    sitemaps robots.txt names; 2: an index of indexes). ``max_bytes``: a sitemap's size,
    decompressed, at most (a bigger one, or a gzip bomb, is refused whole); the protocol
    allows 50 MB, 10 MB keeps a crawl's memory bounded. ``max_urls``: URLs taken from one
    sitemap at most (the protocol's own limit is 50,000; a focused crawl spends some
    100 pages on a site).
    """

    max_per_site: int = 5
    max_depth: int = 2
    max_bytes: int = 10 * 1024 * 1024
    max_urls: int = 20_000

    def __post_init__(self) -> None:
        check_ranges("sitemaps", self, at_least_one=("max_bytes", "max_urls"))


@dataclass(frozen=True)
class StoppingSettings:
    """Per-site stopping criteria (ACHE), for strategies with ``site_limits``.

    A site is left after ``max_pages_per_site`` pages, or ``max_forms_per_site``
    distinct searchable forms that are not relevant (relevant forms never count: a
    directory wants every entry point of a site, e.g. one booking form per property),
    or ``max_relevant_forms_per_site`` relevant forms,
    or ``max_pages_without_form`` pages since its last new searchable form (or its
    first page), or ``exhausted_pages`` pages since its last new searchable form once it
    gave a relevant one (it has no more to give; 0 switches a criterion off). A site that
    holds a relevant form and found a new searchable form within its last
    ``exhausted_pages`` pages, at most a tenth of ``max_pages_per_site``, is still giving:
    the page limit does not close it (one booking form per property: issue 25, eight
    hotel sites held 7-23 each).
    ``extend_pages``: when nothing queued is left and the page limit closed sites whose
    links wait, every site's page limit grows by so many pages and those links are
    queued again, with the off-topic reserve: the link scorer ranks both (0: off). A
    resumed run starts from ``max_pages_per_site`` again.
    """

    max_pages_per_site: int = 100
    max_forms_per_site: int = 10
    max_relevant_forms_per_site: int = 0
    max_pages_without_form: int = 0
    # Issue 17: on unseen webs, the forms ache missed sat on sites it had left at 100
    # pages (database sites of 300-650 pages, forms 2-4 links deep), while the rest of
    # the budget went to off-topic pages. Music, webs 21-24, 5,000 pages: 71 of the webs'
    # 95 relevant forms with neither, 80 with this and reserve_by_level off; hotel on
    # webs 21/22 102/99 -> 98/90 (extending before opening the reserve: 85/80). Benchmark
    # (webs 11-15, all eight domains) in docs/bench/issue17/final/.
    extend_pages: int = 100
    # Issue 25: within-site routes go first (``[frontier] route_links_per_site``), so a
    # site's search forms come early; a third of the 100-page site limit is the patience
    # left for more once one relevant form was found (not tuned on any web).
    exhausted_pages: int = 30

    def __post_init__(self) -> None:
        check_ranges("stopping", self)


@dataclass(frozen=True)
class LearningSettings:
    """Online learning (read by the learners).

    ``threshold``: new relevant-form paths before a learning iteration;
    ``path_length``: hops of a path used (the frontier's levels);
    ``features_per_space``: terms kept per feature space by feature selection;
    ``min_support``: training instances a term must occur in to be selected (the link
    classifier's ``min_df``);
    ``rerank``: re-rank the whole frontier when a learner returns a new scorer.
    ``retrain_pages``: also learn when so many pages passed since the last iteration
    and a new relevant form was found meanwhile (0: only the threshold).
    ``drop_host_terms``: feature selection ignores the terms of each link's own host
    name (a site's name does not carry to other sites).
    ``offline_ratio``: ache-offline-online keeps at most so many offline path
    instances per instance of the crawl's own, per level (0: all of them).
    ``stall_pages``: when a learned model has found no new relevant form for so many
    pages, learn again with half the background taken from the links it chose
    meanwhile, its misses (0: off).
    """

    # ACHE used 100 on crawls of 100,000+ pages of the real Web that found thousands of
    # forms, i.e. some ten iterations or more per crawl. Crawls of a few thousand pages
    # find tens to a hundred relevant forms (the simulated web: 80-130 airfare forms in
    # 3,000 pages), so 100 would never learn; 10 keeps about ten iterations per crawl.
    # Harvest bench (2,000 sites, 3,000 pages, airfare): threshold 5 -> 128, 10 -> 115,
    # 25 -> 92 relevant forms, baseline 86 (one repeat each; see the report of issue 5).
    threshold: int = 10
    path_length: int = 3
    features_per_space: int = 25
    min_support: int = 2
    rerank: bool = True
    retrain_pages: int = 250
    drop_host_terms: bool = True
    offline_ratio: float = 2.0
    # Unseen webs 16 and 17 (never in the benchmark's 11-15), airfare and rental, ache,
    # 5,000 pages, 3 runs each, `scripts/diagnose_learning.py --webs 16,17 --domains
    # airfare,rental --strategies ache --pages 5000 --repeats 3 --concurrency 64 --learning
    # stall_pages=0|500`: 325 -> 332 relevant forms in all (first try, same design: 314 ->
    # 344); on webs 11-13 (harvest bench) neutral. Kept for the runs that stop learning.
    stall_pages: int = 500


@dataclass(frozen=True)
class RenderSettings:
    """Rendering pages with a headless browser: ``mode`` never|auto|always; ``timeout``
    seconds per page; at most ``max_rendered`` pages rendered in a run (0: no limit);
    ``browser``: the chromium binary (``FORMHUNTER_CHROMIUM`` overrides it)."""

    mode: str = "never"
    timeout: float = 15.0
    max_rendered: int = 500
    browser: str = "/usr/bin/chromium"

    def __post_init__(self) -> None:
        if self.mode not in ("never", "auto", "always"):
            raise ConfigError(f"render: mode must be never, auto or always, not {self.mode!r}")


@dataclass(frozen=True)
class TresSettings:
    """TRES: the Tree-Frontier and its Double DQN agent (``formhunter.tres``).

    Reward: a page with a new relevant form earns 1; an on-topic page without one
    earns ``page_reward``. 0.1 measured best of 0, 0.1, 0.2, 0.5 (tres-lite, simulated
    web 11, 2,000 pages, relevant forms by truth; seed set 1: airfare 30/32/31, hotel
    56/64/59 for 0/0.1/0.2; seed set 0: airfare 30/23/17, book 27/28/27 for 0/0.2/0.5):
    a large page reward teaches the agent to harvest on-topic pages, not forms.
    Agent: discount ``gamma``; Q-network ``hidden`` layer sizes and Adam
    ``learning_rate``; one minibatch of ``batch_size`` every ``train_every`` pages
    after ``warmup`` pages; target network copied every
    ``target_every`` updates (``tau`` < 1: soft update each step); replay of
    ``buffer_size`` transitions, each with up to ``max_next`` next actions;
    epsilon-greedy from ``epsilon_start`` to ``epsilon_end`` over ``epsilon_steps``
    selections. Tree-Frontier: at most ``max_leaves`` leaves of at least
    ``min_samples_leaf`` samples, rebuilt every ``rebuild_every`` pages from the
    last ``max_experience`` samples; ``draws_per_leaf`` tries per leaf for a link
    whose host is ready. Keywords: an expansion every ``expand_every`` relevant
    pages, up to ``max_keywords`` (0: no expansion, the default: with TRES on
    simulated webs 11 and 12, 2,000 pages, four domains, expansion to 200 found
    270 relevant forms against 281 without -- book 28/23 against 34/28 -- as it
    takes in names and words of the sites' templates; a stricter filter, lift 4 and
    5 words a round, did not help book). ``rerank_every``: pages between two re-ranks of
    the multi-level frontier by Q (the ``tres-lite`` strategy only). ``policy``: a
    saved policy directory that seeds the crawl ("" = start fresh); ``policy_out``:
    where the crawl saves its policy ("" = not saved), at the end of the crawl.
    """

    page_reward: float = 0.1
    gamma: float = 0.8
    hidden: tuple[int, ...] = (32, 16)
    learning_rate: float = 1e-3
    batch_size: int = 32
    train_every: int = 4
    warmup: int = 64
    target_every: int = 100
    tau: float = 1.0
    buffer_size: int = 10_000
    max_next: int = 8
    epsilon_start: float = 0.3
    epsilon_end: float = 0.05
    epsilon_steps: int = 2_000
    max_leaves: int = 64
    min_samples_leaf: int = 10
    rebuild_every: int = 200
    max_experience: int = 20_000
    draws_per_leaf: int = 3
    expand_every: int = 50
    max_keywords: int = 0
    rerank_every: int = 250
    policy: str = ""
    policy_out: str = ""

    def __post_init__(self) -> None:
        if not 0.0 <= self.page_reward <= 1.0:
            raise ConfigError("tres: page_reward must be between 0 and 1")
        if not 0.0 <= self.gamma < 1.0:
            raise ConfigError("tres: gamma must be in [0, 1)")
        if not 0.0 < self.tau <= 1.0:
            raise ConfigError("tres: tau must be in (0, 1]")
        if not (0.0 <= self.epsilon_end <= 1.0 and 0.0 <= self.epsilon_start <= 1.0):
            raise ConfigError("tres: epsilon_start and epsilon_end must be in [0, 1]")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ConfigError("tres: hidden must list positive layer sizes")
        check_ranges("tres", self, at_least_one=(
            "batch_size", "train_every", "target_every", "buffer_size", "max_next",
            "epsilon_steps", "min_samples_leaf", "rebuild_every", "max_experience",
            "draws_per_leaf", "expand_every", "rerank_every"))  # fmt: skip
        if self.max_leaves < 2 or self.learning_rate <= 0:
            raise ConfigError("tres: max_leaves must be at least 2, learning_rate positive")


# -- end of [tres] ------------------------------------------------------------------------


@dataclass(frozen=True)
class ParseSettings:
    """Bounds on the work of parsing one page (hostile pages under the size cap must not
    stall the crawl). ``max_attributes``: attributes kept per element, cut before the
    HTML parser sees them (libxml2 checks each new attribute against all earlier ones of
    its element, so 200,000 attributes took 44 s); ``max_nodes``: elements walked for
    text, leaves and links (real pages have a few thousand), and forms and headings
    looked at; ``max_forms``: forms extracted; ``max_form_nodes``: elements and select
    options visited inside all the forms of a page; ``max_links``: links kept. What lies
    beyond a bound is left out of the page. ``off_loop_bytes``: a body at least this
    large is parsed in a thread, not on the crawl's event loop, so fetching goes on
    meanwhile. With these, every page of the hostile
    benchmark (``scripts/bench_hostile_parse.py``, up to 5 MB) parsed in at most 1.0 s on
    this 2-core machine when quiet (2.1 s at a load average of 15); before, 163 s.
    """

    max_attributes: int = 256
    max_nodes: int = 100_000
    max_forms: int = 200
    max_form_nodes: int = 20_000
    max_links: int = 20_000
    off_loop_bytes: int = 262_144

    def __post_init__(self) -> None:
        check_ranges("parse", self, at_least_one=("max_attributes", "max_nodes", "max_forms",
                                            "max_form_nodes", "max_links", "off_loop_bytes"))


@dataclass(frozen=True)
class WarcSettings:
    """WARC files of the fetched responses (``formhunter.warc``). ``dir``: where to
    write them ("" = no WARC; ``crawl --warc DIR``); ``max_file_mb``: a file is closed
    and the next one started once it reaches this size (1 GB, as Heritrix)."""

    dir: str = ""
    max_file_mb: int = 1024

    def __post_init__(self) -> None:
        check_ranges("warc", self, at_least_one=("max_file_mb",))


@dataclass(frozen=True)
class ProbeSettings:
    """Probing: a few GET submissions of a form, to see whether it answers queries and
    what its database holds (``formhunter.probing``; ``formhunter probe``).

    ``in_crawl``: probe each relevant form during the crawl, through the crawl's own
    fetcher (same politeness, robots.txt, address guard); off by default because it
    submits forms to other people's sites (``crawl --probe`` turns it on).
    ``max_per_form``: submissions per form at most (a nonsense control, the empty
    query, words, other select values, words from the first results); 6 as the issue
    asks: enough for a verdict and two inputs on the forms of the simulated webs.
    ``max_per_site``: submissions per site at most, over all its forms, so a site
    with many forms is asked no more than a visitor would.
    ``forms``: which stored forms ``formhunter probe`` takes, "relevant" or "searchable"
    (never a form judged not searchable, whatever this says).
    ``page_classifier``: the page classifier (registry name) that reads the result
    items, one per known domain; the result pages' domain is the best domain of all
    result texts together, scoring at least ``min_domain_score`` and best for three
    answers in four one by one, else "other" (``probing.prober``).
    ``concurrency``: forms probed at the same time (submissions to one host still
    wait for its politeness slot).
    """

    in_crawl: bool = False
    max_per_form: int = 6
    max_per_site: int = 20
    forms: str = "relevant"
    page_classifier: str = "default"
    min_domain_score: float = 0.5
    concurrency: int = 16

    def __post_init__(self) -> None:
        check_ranges("probe", self, at_least_one=("max_per_form", "max_per_site", "concurrency"))
        if self.forms not in ("relevant", "searchable"):
            raise ConfigError(f"probe: forms must be relevant or searchable, not {self.forms!r}")
        if not 0.0 <= self.min_domain_score <= 1.0:
            raise ConfigError("probe: min_domain_score must be between 0 and 1")


@dataclass(frozen=True)
class Settings:
    """Every setting of a crawl (see the section classes)."""

    crawl: CrawlSettings = field(default_factory=CrawlSettings)
    fetch: FetchSettings = field(default_factory=FetchSettings)
    frontier: FrontierSettings = field(default_factory=FrontierSettings)
    sitemaps: SitemapSettings = field(default_factory=SitemapSettings)
    stopping: StoppingSettings = field(default_factory=StoppingSettings)
    learning: LearningSettings = field(default_factory=LearningSettings)
    render: RenderSettings = field(default_factory=RenderSettings)
    parse: ParseSettings = field(default_factory=ParseSettings)
    tres: TresSettings = field(default_factory=TresSettings)
    warc: WarcSettings = field(default_factory=WarcSettings)
    probe: ProbeSettings = field(default_factory=ProbeSettings)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """Plain data (tuples become lists), e.g. for ``runs.config``."""
        return {
            f.name: {k: list(v) if isinstance(v, tuple) else v
                     for k, v in dataclasses.asdict(getattr(self, f.name)).items()}
            for f in dataclasses.fields(self)
        }  # fmt: skip

    def replace(self, **sections: dict[str, Any]) -> Settings:
        """A copy with the given keys of the given sections changed (validated)."""
        return merge(self, sections, source="override")


def load_settings(config_file: str | Path | None = None,
                  overrides: dict[str, dict[str, Any]] | None = None, *,
                  base: Settings | None = None) -> Settings:  # fmt: skip
    """Defaults (or ``base``), then the TOML file (if any), then ``overrides``
    ({section: {key: value}}; None values are ignored, meaning "flag not given")."""
    settings = base if base is not None else Settings()
    if config_file:
        settings = merge(settings, read_settings_file(config_file), source=str(config_file))
    if overrides:
        clean = {s: {k: v for k, v in kv.items() if v is not None} for s, kv in overrides.items()}
        settings = merge(settings, {s: kv for s, kv in clean.items() if kv}, source="flags")
    return settings


def settings_from_dict(data: dict[str, Any]) -> Settings:
    """Settings back from ``Settings.to_dict()`` (e.g. a run's stored config)."""
    return merge(Settings(), data, source="stored config")
