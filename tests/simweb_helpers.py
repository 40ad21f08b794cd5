"""Test helpers for the simulated web: parse served HTML with lxml the way a crawler does."""

from __future__ import annotations

from urllib.parse import urljoin

import lxml.html

from formhunter.model import form_signature
from formhunter.simweb import canonical_url


def parse_links(html: bytes, url: str) -> list[tuple[str, str]]:
    doc = lxml.html.fromstring(html)
    out = []
    for a in doc.iter("a"):
        href = a.get("href")
        if href is None:
            continue
        u = urljoin(url, href.strip())
        if u.startswith(("http://", "https://")):
            out.append((canonical_url(u), a.text_content()))
    return out


def parse_form_signatures(html: bytes, url: str) -> list[str]:
    doc = lxml.html.fromstring(html)
    sigs = []
    for f in doc.iter("form"):
        act = (f.get("action") or "").strip()
        action = urljoin(url, act) if act else url
        method = (f.get("method") or "").strip().upper() or "GET"
        fields = []
        for el in f.iter("input", "select", "textarea", "button"):
            if el.tag == "input":
                typ = (el.get("type") or "text").lower()
            elif el.tag == "button":
                typ = "button"
            else:
                typ = el.tag
            fields.append((el.get("name") or "", typ))
        sigs.append(form_signature(action, method, fields))
    return sigs
