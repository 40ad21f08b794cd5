"""The import graph: no cycles between modules (module-level and function-level
imports count; ``if TYPE_CHECKING:`` blocks do not run and do not count), and the
scikit-learn package ``classifiers`` imports nothing from formhunter (formhunter ->
classifiers is the one allowed direction)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("formhunter", "classifiers")

def _modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(f.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = f
    return mods


def _resolve(name: str, mods: dict[str, Path]) -> str | None:
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(type_only: bool = False) -> dict[str, set[str]]:
    """module -> the project modules it imports (anywhere in the file; with
    ``type_only``, in ``if TYPE_CHECKING:`` blocks too)."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip: set[int] = set()
        for node in ast.walk(tree):
            if (not type_only and isinstance(node, ast.If)
                    and "TYPE_CHECKING" in ast.unparse(node.test)):  # fmt: skip
                skip.update(id(n) for sub in node.body for n in ast.walk(sub))
        package = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package[: len(package) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets = [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                r = _resolve(t, mods)
                if r is not None and r != mod:
                    graph[mod].add(r)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_the_graph_sees_function_level_imports() -> None:
    graph = import_graph()
    # formhunter.engine imports the renderer inside a method
    assert "formhunter.fetch.render" in graph["formhunter.engine"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    graph = import_graph()
    found = cycles(graph)
    detail = [
        f"{c}: " + ", ".join(f"{a} -> {b}" for a in c for b in sorted(graph[a]) if b in c)
        for c in found
    ]
    assert not found, "import cycles:\n" + "\n".join(detail)


def test_no_import_cycles_type_only_imports_included() -> None:
    """Not even ``if TYPE_CHECKING:`` imports make a cycle, in the product or in the
    harness (simweb, worlds, bench): the harness's modules annotate with protocols
    (``simweb.webparts.WebParts``, ``worlds.bazaar.site.SiteView``/``WorldView``,
    ``simweb.server.ServedWorld``) instead of the classes that import them."""
    graph = import_graph(type_only=True)
    found = cycles(graph)
    detail = [
        f"{c}: " + ", ".join(f"{a} -> {b}" for a in c for b in sorted(graph[a]) if b in c)
        for c in found
    ]
    assert not found, "import cycles (type-only imports included):\n" + "\n".join(detail)
    # the harness is in the graph: its modules and their type-only edges are seen
    assert {"formhunter.simweb.generator", "formhunter.worlds.bazaar.sitemodel",
            "formhunter.bench.cluster"} <= set(graph)  # fmt: skip
    assert "formhunter.simweb.webparts" in graph["formhunter.simweb.pages"]


def test_classifiers_import_nothing_from_formhunter() -> None:
    graph = import_graph()
    bad = sorted(
        (m, t) for m, ts in graph.items() if m.startswith("classifiers")
        for t in ts if t.startswith("formhunter")
    )  # fmt: skip
    assert not bad, f"classifiers -> formhunter: {bad}"


def test_only_commands_import_commands() -> None:
    """The CLI is the top layer: the library, the web page, trainers and benchmarks never
    import ``formhunter.commands`` (``formhunter.cli`` is the CLI's entry point)."""
    graph = import_graph()
    bad = sorted(
        (m, t) for m, ts in graph.items()
        if not m.startswith("formhunter.commands") and m != "formhunter.cli"
        for t in ts if t.startswith("formhunter.commands")
    )  # fmt: skip
    assert not bad, bad


def test_product_does_not_import_the_harness() -> None:
    """Components and the crawl never import bench/ or simweb/ (the harness)."""
    graph = import_graph()
    product = ("formhunter.engine", "formhunter.pipeline", "formhunter.frontier",
               "formhunter.learners", "formhunter.trainers", "formhunter.scorers",
               "formhunter.critics", "formhunter.page_classifiers", "formhunter.fetch")  # fmt: skip
    bad = sorted(
        (m, t) for m, ts in graph.items() if m.startswith(product)
        for t in ts if t.startswith(("formhunter.bench", "formhunter.simweb"))
    )  # fmt: skip
    assert not bad, bad
