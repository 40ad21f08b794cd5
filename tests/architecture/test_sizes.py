"""Issue 27's size goals, kept: no module over 600 lines outside simweb and bench,
``Pipeline`` under 350 lines, ``CrawlFrontier`` at most 10 members."""

from __future__ import annotations

import ast
from pathlib import Path

import formhunter
from formhunter import interfaces, pipeline

ROOT = Path(formhunter.__file__).parent


def _class(module_file: str, name: str) -> ast.ClassDef:
    tree = ast.parse(Path(module_file).read_text(encoding="utf-8"))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def test_no_module_over_600_lines_outside_simweb_and_bench() -> None:
    long = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in ("simweb", "bench"):
            continue
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > 600:
            long[str(rel)] = n
    assert not long, long


def test_pipeline_under_350_lines_and_crawl_frontier_at_most_10_members() -> None:
    cls = _class(pipeline.__file__, "Pipeline")
    assert cls.end_lineno is not None and cls.end_lineno - cls.lineno + 1 < 350
    members = [n for n in _class(interfaces.__file__, "CrawlFrontier").body
               if not isinstance(n, ast.Expr)]  # fmt: skip
    assert 0 < len(members) <= 10
