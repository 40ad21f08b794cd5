"""Per-site stopping criteria (ACHE): the site rules and the ``SiteBudget`` that counts each
site's pages and forms and closes a site when a rule says so. Part of the crawl policy
(``formhunter.frontier.policy``, whose module doc has the rule table)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from formhunter.config import StoppingSettings

if TYPE_CHECKING:
    from formhunter.catalogue import ResumeState

# -- site rules and the site budget ------------------------------------------------


class SiteRule(Protocol):
    """Closes a site: ``reason(site, budget)`` is why (a "site-..." reason counted in
    ``CrawlStats.skipped`` for each link skipped so), "" while the rule lets it run."""

    def reason(self, site: str, budget: SiteBudget) -> str: ...


class PageLimit:
    """``max_pages_per_site`` pages (plus what ``SiteBudget.extend`` added), unless the
    site is still giving (``SiteBudget.giving``: a relevant form, and a new searchable
    form in its last few pages): a directory wants every entry point of a site, e.g. one
    booking form per property; the limit closes it once it stops giving."""

    def reason(self, site: str, budget: SiteBudget) -> str:
        n = budget.settings.max_pages_per_site
        if not n or budget.pages[site] < n + budget.extra_pages:
            return ""
        return "" if budget.giving(site) else "site-pages"


class FormLimit:
    """``max_forms_per_site`` distinct searchable forms that are not relevant (relevant
    forms never count: a directory wants every entry point of a site)."""

    def reason(self, site: str, budget: SiteBudget) -> str:
        n = budget.settings.max_forms_per_site
        return "site-forms" if n and budget.forms[site] - budget.relevant[site] >= n else ""


class RelevantFormLimit:
    """``max_relevant_forms_per_site`` relevant forms."""

    def reason(self, site: str, budget: SiteBudget) -> str:
        n = budget.settings.max_relevant_forms_per_site
        return "site-relevant-forms" if n and budget.relevant[site] >= n else ""


class NoFormLimit:
    """``max_pages_without_form`` pages since the site's last new searchable form."""

    def reason(self, site: str, budget: SiteBudget) -> str:
        n = budget.settings.max_pages_without_form
        return "site-no-forms" if n and budget.since_form[site] >= n else ""


class SiteExhausted:
    """A site that gave a relevant form and then ``exhausted_pages`` pages without a new
    searchable form has no more to give: its pages go to other sites."""

    def reason(self, site: str, budget: SiteBudget) -> str:
        n = budget.settings.exhausted_pages
        return "site-exhausted" if n and budget.relevant[site] and \
            budget.since_form[site] >= n else ""  # fmt: skip


def site_rules(settings: StoppingSettings) -> list[SiteRule]:
    """ACHE's per-site stopping criteria, in the order their reasons are reported."""
    return [PageLimit(), FormLimit(), RelevantFormLimit(), NoFormLimit(), SiteExhausted()]


@dataclass
class SiteBudget:
    """Per-site counters and the site rules (``StoppingSettings``) that close a site."""

    settings: StoppingSettings
    pages: Counter[str] = field(default_factory=Counter)
    forms: Counter[str] = field(default_factory=Counter)
    relevant: Counter[str] = field(default_factory=Counter)
    since_form: Counter[str] = field(default_factory=Counter)
    closed: dict[str, str] = field(default_factory=dict)
    extra_pages: int = 0  # added to max_pages_per_site by ``extend``
    rules: list[SiteRule] = field(default_factory=list)  # empty: ``site_rules(settings)``

    def __post_init__(self) -> None:
        if not self.rules:
            self.rules = site_rules(self.settings)

    def page(self, site: str, new_searchable: int, new_relevant: int) -> None:
        """Count one fetched page of ``site`` and the new forms found on it."""
        self.pages[site] += 1
        if new_searchable:
            self.forms[site] += new_searchable
            self.relevant[site] += new_relevant
            self.since_form[site] = 0
        else:
            self.since_form[site] += 1
        self._check(site)

    @classmethod
    def from_resume(cls, settings: StoppingSettings, state: ResumeState) -> SiteBudget:
        """The budget of a resumed run: per-site pages fetched, searchable and relevant
        forms found, pages since the last searchable form; closed sites re-closed."""
        b = cls(settings, Counter(state.site_pages), Counter(state.site_forms),
                Counter(state.site_relevant), Counter(state.site_since_form))  # fmt: skip
        for site in b.pages:
            b._check(site)
        return b

    def extend(self) -> list[str]:
        """Raise every site's page limit by ``extend_pages``; the sites it reopens
        (closed by the page limit alone). Nothing when no site is closed so."""
        s = self.settings
        closed = [site for site, why in self.closed.items() if why == "site-pages"]
        if not (s.extend_pages and s.max_pages_per_site and closed):
            return []
        self.extra_pages += s.extend_pages
        for site in closed:
            del self.closed[site]
            self._check(site)
        return [site for site in closed if site not in self.closed]

    def _check(self, site: str) -> None:
        for rule in self.rules:
            why = rule.reason(site, self)
            if why:
                self.closed[site] = why
                return

    def reason(self, site: str) -> str:
        """Why ``site`` is closed ("" if it is open)."""
        return self.closed.get(site, "")

    def giving(self, site: str) -> bool:
        """``site`` holds a relevant form and found a new searchable form within its last
        ``exhausted_pages`` pages, at most a tenth of ``max_pages_per_site`` (never with
        ``exhausted_pages`` 0, nor under a page limit of 10: a small limit is meant)."""
        s = self.settings
        n = min(s.exhausted_pages, s.max_pages_per_site // 10) if s.max_pages_per_site else 0
        return bool(n and self.relevant[site] and self.since_form[site] < n)
