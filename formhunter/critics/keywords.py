"""The keyword critic: a structural heuristic for "searchable" and keyword hits for
the domain (no trained model needed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifiers.form_types import NON_DATA_TYPES
from formhunter.keywords import LOGIN_WORDS, SEARCH_WORDS, hits
from formhunter.model import Form, Page, Verdict


class KeywordCritic:
    """Heuristic critic: a form is searchable when it has a free-text or choice field,
    no password, and no login/subscribe wording; it is of the domain when its text,
    field names, labels and options hit the domain's keywords."""

    def __init__(self, domain: str, keywords: Sequence[str]) -> None:
        self.domain = domain
        self.keywords = tuple(keywords)

    def _searchable(self, form: Form) -> float:
        types = [f.type for f in form.fields if f.type not in NON_DATA_TYPES]
        if not types or "password" in types:
            return 0.0
        texts = " ".join([*form.submit_texts, form.text[:500], form.attrs.get("id", ""),
                          form.attrs.get("name", ""), form.action]).lower()
        if any(w in texts for w in LOGIN_WORDS):
            return 0.1
        score = 0.4
        if any(t in ("text", "search", "select") for t in types):
            score += 0.3
        if any(w in texts for w in SEARCH_WORDS) or form.method.upper() == "GET":
            score += 0.2
        if types.count("email") == len(types) or "textarea" in types:
            score -= 0.4
        return max(0.0, min(1.0, score))

    def judge(self, forms: Sequence[Form], page: Page) -> list[Verdict]:
        out = []
        for form in forms:
            s = self._searchable(form)
            searchable = s >= 0.5
            bag = " ".join(
                [form.text[:2000], form.action, form.context]
                + [f"{f.name} {f.label} {f.placeholder} {' '.join(f.options[:50])}"
                   for f in form.fields]
            ).lower()
            d = float(1.0 - 0.5 ** hits(bag, self.keywords))
            in_domain = searchable and d >= 0.5
            out.append(Verdict(searchable, s, self.domain if in_domain else "", d,
                               in_domain))  # fmt: skip
        return out

    def models(self) -> dict[str, dict[str, Any]]:
        """None: rules."""
        return {}

    def judge_many(self, batch: Sequence[tuple[Sequence[Form], Page]]) -> list[list[Verdict]]:
        """``judge`` per (forms, page), in order."""
        return [self.judge(forms, page) for forms, page in batch]
