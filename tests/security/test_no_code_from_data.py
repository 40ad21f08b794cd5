"""A catalogue and a model directory are data, not code (issue 29): a crafted learner
state or model file that tries to run code is refused, and nothing runs; the learner
relearns, the model is refused with the command that rebuilds it."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from engine_helpers import crawl_once, loopback_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from classifiers import safe_format
from classifiers.exceptions import ModelError
from classifiers.persist import DEFAULT_MODELS, MANIFEST, load_model, save_model
from formhunter.catalogue import Catalogue
from formhunter.engine import Engine
from formhunter.exceptions import StateFormatError
from formhunter.learners.base import dump_state, load_state
from formhunter.simweb import ProxyHandle


class _Evil:
    """Unpickling it creates the marker file: proof that code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def _archive(tree: Any) -> bytes:
    buf = io.BytesIO()
    raw = json.dumps({"format": safe_format.FORMAT, "version": safe_format.VERSION,
                      "root": tree}).encode()  # fmt: skip
    np.savez(buf, __tree__=np.frombuffer(raw, np.uint8))
    return buf.getvalue()


def _crafted(marker: Path) -> list[bytes]:
    """Safe-format archives that name code to call, each its own way."""
    cmd = f"touch {marker}"
    return [
        _archive({"$": "obj", "id": 0, "cls": "posix.system", "how": "call", "args": [cmd],
                  "state": None}),
        _archive({"$": "obj", "id": 0, "cls": "subprocess.Popen", "how": "call",
                  "args": [["touch", str(marker)]], "state": None}),
        _archive({"$": "name", "id": 0, "v": "builtins.eval"}),
        _archive({"$": "obj", "id": 0, "cls": "sklearn.pipeline.Pipeline", "how": "new",
                  "args": [], "state": {"$": "dict", "id": 1, "v": {
                      "steps": {"$": "name", "id": 2, "v": "os.system"}}}}),
        _object_member(marker),
    ]


def _object_member(marker: Path) -> bytes:
    """An npz whose array member is an object array (a pickle inside the .npy): numpy
    refuses it (``allow_pickle=False``)."""
    buf = io.BytesIO()
    raw = json.dumps({"format": safe_format.FORMAT, "version": safe_format.VERSION,
                      "root": {"$": "nd", "id": 0, "v": 0}}).encode()  # fmt: skip
    with zipfile.ZipFile(buf, "w") as z:
        for name, arr in (("__tree__", np.frombuffer(raw, np.uint8)),
                          ("a0", np.array([_Evil(marker)], dtype=object))):  # fmt: skip
            member = io.BytesIO()
            np.save(member, arr, allow_pickle=True)
            z.writestr(name + ".npy", member.getvalue())
    return buf.getvalue()


def test_crafted_archives_are_refused_and_run_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    for data in _crafted(marker):
        with pytest.raises(safe_format.UnsafeFormatError):
            safe_format.loads(data)
        assert not marker.exists()


def test_saving_a_type_outside_the_allowlist_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="allowlist"):
        save_model(_Evil(tmp_path / "ran"), tmp_path / "m", kind="searchable", data_hash="x",
                   params={}, metrics={})  # fmt: skip
    assert not (tmp_path / "ran").exists() and not (tmp_path / "m" / "model.npz").exists()


def _crafted_model_dir(root: Path, how: str, marker: Path, k: int = 0) -> Path:
    """A searchable-model directory with the shipped manifest and a hostile model file:
    an old-style pickled ``model.joblib``, or a ``model.npz`` that names code."""
    d = root / f"{how}{k}" / "searchable"
    d.mkdir(parents=True)
    (d / MANIFEST).write_text((DEFAULT_MODELS / "searchable" / MANIFEST).read_text())
    if how == "pickle":
        (d / "model.joblib").write_bytes(pickle.dumps(_Evil(marker)))
    else:
        (d / "model.npz").write_bytes(_crafted(marker)[k])
    return d


@pytest.mark.parametrize(("how", "k"), [("pickle", 0), *(("crafted", k) for k in range(5))])
def test_a_crafted_model_directory_is_refused_and_runs_nothing(tmp_path: Path, how: str,
                                                               k: int) -> None:  # fmt: skip
    marker = tmp_path / "ran"
    d = _crafted_model_dir(tmp_path, how, marker, k)
    with pytest.raises(ModelError) as err:
        load_model(d, "searchable")
    message = str(err.value)
    assert "retrain" in message.lower() and "\n" not in message, message
    assert ("pickled model" in message) if how == "pickle" else ("cannot load" in message)
    assert not marker.exists()


@pytest.mark.parametrize("how", ["pickle", "crafted"])
def test_judge_with_a_crafted_model_directory_is_a_message_and_runs_nothing(
    tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line: ``judge --models DIR`` with a hostile searchable model is one
    error line (exit 1), no traceback, and the marker is never created."""
    from formhunter.cli import main

    marker = tmp_path / "ran"
    d = _crafted_model_dir(tmp_path, how, marker)
    page = tmp_path / "p.html"
    page.write_text("<form action=/s><input name=q type=text><input type=submit></form>")
    code = main(["judge", str(page), "--models", str(d.parent)])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err and str(d) in err, err
    assert not marker.exists()


def test_every_shipped_model_loads_from_the_safe_format() -> None:
    """Every model under data/models is a ``model.npz`` (no pickle left) with the
    format and the file's sha256 in its manifest, beside its metrics."""
    import hashlib

    from formhunter.tres.policy import POLICY_TYPES

    dirs = sorted(p.parent for p in DEFAULT_MODELS.rglob(MANIFEST))
    assert len(dirs) >= 19 and not list(DEFAULT_MODELS.rglob("model.joblib"))
    for d in dirs:
        manifest = json.loads((d / MANIFEST).read_text())
        assert manifest["format"] == f"{safe_format.FORMAT}-{safe_format.VERSION}", d
        data = (d / "model.npz").read_bytes()
        assert manifest["model_sha256"] == hashlib.sha256(data).hexdigest(), d
        assert "metrics" in manifest and "data_hash" in manifest and "versions" in manifest
    for kind in ("searchable", "domain", "context"):
        model, _ = load_model(DEFAULT_MODELS / kind, kind, trusted=POLICY_TYPES)
        assert model is not None


def test_fast_paths_rebuild_what_the_node_by_node_path_rebuilds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A vocabulary's integers built at once: the shipped context model (its page
    vocabularies) rebuilds as node by node, each number of the same numpy type, shared
    references and all (written back, the two trees and arrays are equal). (Plain dicts
    and sets taken as they are need no test: a plain item decodes to itself.)"""
    data = (DEFAULT_MODELS / "context" / "model.npz").read_bytes()
    fast = safe_format.loads(data)
    vocab = fast.topics._vocab
    assert len(vocab) > 1000 and {type(x) for x in vocab.values()} == {np.int64}
    monkeypatch.setattr(safe_format._Decoder, "_integers", lambda self, nodes: None)
    slow = safe_format.loads(data)
    monkeypatch.undo()

    def written(obj: Any) -> tuple[str, list[np.ndarray]]:
        enc = safe_format._Encoder(safe_format.TRUSTED)
        return json.dumps(enc.enc(obj), sort_keys=True), enc.arrays

    (t1, a1), (t2, a2) = written(fast), written(slow)
    assert t1 == t2 and len(a1) == len(a2)
    assert all(np.array_equal(x, y) for x, y in zip(a1, a2, strict=True))


def test_a_pickle_is_never_unpickled(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    evil = pickle.dumps(_Evil(marker))
    with pytest.raises(safe_format.UnsafeFormatError):
        safe_format.loads(evil)
    with pytest.raises(StateFormatError, match="older format"):
        load_state("adaptive", evil)
    assert not marker.exists()


def test_shared_references_cycles_and_numbers_survive() -> None:
    shared = [1, 2]
    rng = np.random.default_rng(3)
    obj: dict[str, Any] = {"a": shared, "b": shared, "t": (1.5, float("nan"), 2**70),
                           "s": {("x", 1)}, "arr": np.arange(5), "o": np.array(["a", None]),
                           "rng": rng, 7: b"\x00\xff"}  # fmt: skip
    obj["self"] = obj
    back = safe_format.loads(safe_format.dumps(obj))
    assert back["a"] is back["b"] and back["self"] is back
    assert back["t"][2] == 2**70 and np.isnan(back["t"][1]) and back[7] == b"\x00\xff"
    assert back["s"] == {("x", 1)} and back["o"].tolist() == ["a", None]
    assert back["rng"].random() == rng.random()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_archives_raise_only_unsafe_format_error(data: st.DataObject) -> None:
    """Random damage to a real state archive: a clean error or a value, never code."""
    good = bytearray(dump_state("adaptive", {"x": [1, 2, 3], "y": np.ones(4)}))
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, len(good) - 1))
        good[pos] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(good)))
    with contextlib.suppress(safe_format.UnsafeFormatError):
        safe_format.loads(bytes(good[:cut]))


def test_a_damaged_compressed_member_is_an_unsafe_format_error() -> None:
    """Every byte of a compressed member's data flipped in turn: zlib's own error (a bad
    deflate stream) is an UnsafeFormatError too, as hypothesis once found."""
    good = dump_state("adaptive", {"x": [1, 2, 3], "y": np.ones(4)})
    with zipfile.ZipFile(io.BytesIO(good)) as zf:
        info = next(i for i in zf.infolist() if i.compress_type == zipfile.ZIP_DEFLATED)
    name_len, extra_len = (int.from_bytes(good[info.header_offset + k:info.header_offset + k + 2],
                                          "little") for k in (26, 28))  # fmt: skip
    start = info.header_offset + 30 + name_len + extra_len
    for pos in range(start, start + min(info.compress_size, 64)):
        bad = bytearray(good)
        bad[pos] ^= 0xFF
        with contextlib.suppress(safe_format.UnsafeFormatError):
            safe_format.loads(bytes(bad))


def test_fuzzed_trees_raise_only_unsafe_format_error() -> None:
    for tree in [{"$": "ref", "v": 9}, {"$": "list", "id": 0, "v": 3},
                 {"$": "obj", "id": 0, "cls": 5}, {"$": "dict", "id": 0, "v": []},
                 {"$": "nd", "id": 0, "v": "a0"}, {"$": "npgen", "id": 0, "bg": "os", "v": 1},
                 {"$": "list", "id": 0, "v": [{"$": "list", "id": 0, "v": []}]},
                 [1, 2], "text"]:  # fmt: skip
        with contextlib.suppress(safe_format.UnsafeFormatError):
            safe_format.loads(_archive(tree))


def test_a_crafted_catalogue_is_refused_on_resume_and_runs_nothing(
    simweb_proxy: ProxyHandle, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A catalogue whose learner state is a pickle that runs code: --resume warns, the
    learner relearns, the crawl goes on, and the pickle never runs."""
    marker = tmp_path / "ran"
    db = tmp_path / "c.duckdb"
    s = loopback_settings(simweb_proxy, db, {"crawl": {"strategy": "ache", "max_pages": 30,
                                                       "domain": "airfare"},
                                             "learning": {"threshold": 2}})  # fmt: skip
    seeds = simweb_proxy.web.seeds("airfare", 3)
    _, cat = crawl_once(s, seeds)
    with cat:
        names = [r[0] for r in cat.con.execute("SELECT learner FROM learner_state").fetchall()]
        assert names, "the crawl saved no learner state"
        cat.con.execute("UPDATE learner_state SET state = ?", [pickle.dumps(_Evil(marker))])
        cat.con.execute("UPDATE runs SET status = 'interrupted'")
    s2 = loopback_settings(simweb_proxy, db, {"crawl": {"strategy": "ache", "max_pages": 40,
                                                        "domain": "airfare"}})  # fmt: skip
    with Catalogue(db) as cat2:
        result = asyncio.run(Engine(s2, cat2, resume=True).run())
    assert not marker.exists()
    assert any("older format" in r.getMessage() and "relearns" in r.getMessage()
               for r in caplog.records)  # fmt: skip
    assert result.stats.pages >= 30
