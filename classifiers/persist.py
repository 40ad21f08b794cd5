"""Model directories: ``model.npz`` plus ``manifest.json``, kept and named.

Trained models are kept, never replaced: ``keep_model`` moves a model just written
to ``<root>/<kind>/<name>``, its name the time it was made and its training data's
hash (``model_name``: ``20261128-021500-1a2b3c4d``). ``model_path`` picks the newest
of a kind unless a name is given (``SHIPPED``: the model shipped in data/models, also
the fallback when the user model directory has none); ``list_models`` lists them and
``model_info`` says which one judged (path, manifest hash, metrics).

The manifest records the model kind, the library versions it was made with,
the training data hash, the parameters and the cross-validated metrics.
``load_model`` refuses a model whose manifest is missing or whose libraries are
incompatible with the installed ones (scikit-learn major.minor, numpy major,
Python major.minor must match), with a ``ModelError`` that says which command
rebuilds it. The model file is in ``classifiers.safe_format`` (arrays and JSON,
read without pickle): loading a model directory from anyone runs no code of
theirs; a type outside the format's allowlist is refused. A directory holding an
old pickled ``model.joblib`` is refused with the command that retrains it
(``scripts/convert_pickled_models.py`` converts models you made yourself).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import time
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from classifiers.exceptions import ModelError

__all__ = [
    "BASELINES",
    "DEFAULT_MODELS",
    "MANIFEST",
    "MODEL_FILE",
    "OLD_MODEL_FILE",
    "SHIPPED",
    "USER_MODELS_ENV",
    "compatible",
    "keep_model",
    "library_versions",
    "list_models",
    "load_model",
    "model_info",
    "model_name",
    "model_path",
    "new_model_dir",
    "pin_baseline",
    "read_baselines",
    "read_manifest",
    "save_model",
    "user_models_dir",
]

DEFAULT_MODELS = Path(__file__).resolve().parents[1] / "data" / "models"
#: environment variable naming the user model directory
USER_MODELS_ENV = "FORMHUNTER_MODELS"
MANIFEST = "manifest.json"
MODEL_FILE = "model.npz"
#: the pickled model file of older versions, refused (``load_model``)
OLD_MODEL_FILE = "model.joblib"
_LIBS = ("scikit-learn", "numpy", "scipy", "joblib", "nltk", "lxml")
#: how many leading version components must agree
_MUST_MATCH = {"python": 2, "scikit-learn": 2, "numpy": 1, "scipy": 1}
_TRAIN_HINT = {
    "searchable": "formhunter train searchable --out {dir}",
    "domain": "formhunter train domain --out {dir}",
    "context": "formhunter train context --out {dir}",
}


def user_models_dir() -> Path:
    """Where ``formhunter train`` writes models by default, outside the source tree:
    ``$FORMHUNTER_MODELS``, else ``$XDG_DATA_HOME/formhunter/models``, else
    ``~/.local/share/formhunter/models``. The shipped models in data/models are
    never written by default."""
    env = os.environ.get(USER_MODELS_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "formhunter" / "models"


def model_path(relative: str | Path, models_dir: str | Path | None = None,
               name: str | None = None) -> Path:  # fmt: skip
    """The model directory to load ``relative`` (e.g. "domain", "page/book/svm") from.

    The one place model loading looks things up. ``name`` picks a kept model by name
    (``SHIPPED``: the one in data/models; ModelError naming the kept ones when there
    is none of that name). Else, in ``models_dir`` (default: the user model directory,
    ``user_models_dir``): a model stored directly in ``relative`` (the layout before
    names, or an ``--out`` directory), else the newest kept model of ``relative``;
    without ``models_dir``, the shipped model when the user directory has neither.
    """
    if name == SHIPPED:
        return DEFAULT_MODELS / relative
    explicit = models_dir is not None and bool(str(models_dir))
    d = (Path(models_dir) if models_dir is not None and explicit else user_models_dir()) / relative
    if name:
        if (d / name / MANIFEST).is_file():
            return d / name
        known = ", ".join(p.name for p in _kept(d)) or "none"
        raise ModelError(f"no {relative} model named {name!r} in {d} (kept: {known}; "
                         f"{SHIPPED!r} names the shipped one; formhunter models list)")
    if (d / MANIFEST).is_file():
        return d
    kept = _kept(d)
    if kept:
        return kept[-1]
    return d if explicit else DEFAULT_MODELS / relative


#: the name that selects the model shipped in data/models
SHIPPED = "shipped"
_NAME = re.compile(r"^\d{8}-\d{6}-[0-9a-z]+(-\d+)?$")


def _kept(d: Path) -> list[Path]:
    """The named models kept in ``d``, oldest first (names sort by time)."""
    if not d.is_dir():
        return []
    return sorted(p for p in d.iterdir()
                  if _NAME.match(p.name) and (p / MANIFEST).is_file())  # fmt: skip


def model_name(manifest: dict[str, Any]) -> str:
    """A model's name: when it was made (UTC) and its training data's hash."""
    stamp = re.sub(r"[^0-9]", "", str(manifest.get("created", "")))[:14]
    stamp = f"{stamp[:8]}-{stamp[8:14]}" if len(stamp) == 14 else time.strftime(
        "%Y%m%d-%H%M%S", time.gmtime())  # fmt: skip
    digest = re.sub(r"[^0-9a-z]", "", str(manifest.get("data_hash", "")).lower())[:8]
    return f"{stamp}-{digest or 'nohash'}"


def new_model_dir(root: str | Path, relative: str | Path) -> Path:
    """A fresh directory to write a model into before ``keep_model`` names it."""
    return Path(root) / relative / f".new-{os.getpid()}-{time.time_ns()}"


def keep_model(built: str | Path, root: str | Path, relative: str | Path) -> Path:
    """Move the model written in ``built`` to ``root/relative/<model_name>`` and return
    that directory. A model stored directly in ``root/relative`` (the layout before
    names) is first kept under its own name, so no model is ever replaced."""
    d = Path(root) / relative
    if (d / MANIFEST).is_file():
        old = d / model_name(read_manifest(d))
        old.mkdir(parents=True, exist_ok=True)
        for p in list(d.iterdir()):
            if p.is_file():
                p.rename(old / p.name)
    base = model_name(read_manifest(built))
    final, n = d / base, 1
    while final.exists():
        final, n = d / f"{base}-{n}", n + 1
    Path(built).rename(final)
    return final


def list_models(models_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """Every model under the user model directory (or ``models_dir``), then the shipped
    ones: {kind_path, name, path, manifest}, by kind and name."""
    out: list[dict[str, Any]] = []
    user = Path(models_dir) if models_dir else user_models_dir()
    for base, shipped in ((user, False), (DEFAULT_MODELS, True)):
        if not base.is_dir():
            continue
        for man in sorted(base.rglob(MANIFEST)):
            d = man.parent
            rel = d.relative_to(base)
            if any(part.startswith(".") for part in rel.parts):
                continue
            named = not shipped and bool(_NAME.match(d.name))
            try:
                manifest = read_manifest(d)
            except ModelError:
                continue
            out.append({"kind_path": str(rel.parent if named else rel),
                        "name": SHIPPED if shipped else (d.name if named else "(unnamed)"),
                        "path": d, "manifest": manifest})  # fmt: skip
    return out


def model_info(directory: str | Path) -> dict[str, Any]:
    """What a run or a re-judging records of a model: name, path, the manifest's
    SHA-256, kind, created, data hash and its scalar metrics."""
    d = Path(directory).resolve()
    try:
        raw = (d / MANIFEST).read_bytes()
        manifest = json.loads(raw)
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read {d / MANIFEST}: {exc}") from None
    shipped = d.is_relative_to(DEFAULT_MODELS.resolve())
    metrics = {k: v for k, v in (manifest.get("metrics") or {}).items()
               if isinstance(v, int | float) and not isinstance(v, bool)}  # fmt: skip
    return {"name": SHIPPED if shipped else d.name, "path": str(d),
            "manifest_sha256": hashlib.sha256(raw).hexdigest(), "kind": manifest.get("kind"),
            "created": manifest.get("created"), "data_hash": manifest.get("data_hash"),
            "metrics": metrics}  # fmt: skip


def library_versions() -> dict[str, str]:
    """Versions of Python and the libraries a pickled model depends on."""
    out = {"python": platform.python_version()}
    for lib in _LIBS:
        try:
            out[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            out[lib] = ""
    return out


def _prefix(version: str, n: int) -> tuple[str, ...]:
    return tuple(version.split(".")[:n])


def compatible(saved: dict[str, str], current: dict[str, str] | None = None) -> list[str]:
    """Human-readable mismatches between saved and installed versions (empty = compatible)."""
    current = current or library_versions()
    problems = []
    for lib, n in _MUST_MATCH.items():
        a, b = saved.get(lib, ""), current.get(lib, "")
        if not a or _prefix(a, n) != _prefix(b, n):
            problems.append(f"{lib} {a or '?'} (installed: {b or 'none'})")
    return problems


def save_model(
    model: Any,
    directory: Path | str,
    *,
    kind: str,
    data_hash: str,
    params: dict[str, Any],
    metrics: dict[str, Any],
    extra: dict[str, Any] | None = None,
    trusted: Iterable[str] = (),
) -> Path:
    """Write ``model.npz`` (``classifiers.safe_format``) and ``manifest.json`` into
    ``directory`` (created); an old ``model.joblib`` there is removed. ModelError when
    the model holds a type outside the format's allowlist (and ``trusted``)."""
    from classifiers import safe_format

    d = Path(directory)
    try:
        data = safe_format.dumps(model, trusted=trusted)
    except safe_format.UnsafeFormatError as exc:
        raise ModelError(f"cannot save the {kind} model: {exc}") from None
    d.mkdir(parents=True, exist_ok=True)
    tmp = d / (MODEL_FILE + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, d / MODEL_FILE)
    (d / OLD_MODEL_FILE).unlink(missing_ok=True)
    manifest = {
        "kind": kind,
        "estimator": f"{type(model).__module__}.{type(model).__qualname__}",
        "formhunter": _formhunter_version(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "versions": library_versions(),
        "data_hash": data_hash,
        "format": f"{safe_format.FORMAT}-{safe_format.VERSION}",
        "model_sha256": hashlib.sha256(data).hexdigest(),
        "params": params,
        "metrics": metrics,
        **(extra or {}),
    }
    (d / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n")
    return d


def _formhunter_version() -> str:
    """The installed formhunter distribution's version ("unknown" when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("formhunter")
    except PackageNotFoundError:
        return "unknown"


def read_manifest(directory: Path | str) -> dict[str, Any]:
    """The manifest of a model directory; ModelError if absent or unreadable."""
    path = Path(directory) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"no model in {directory} ({MANIFEST} missing)") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelError(f"{path} is unreadable: {exc}") from None
    if not isinstance(data, dict):
        raise ModelError(f"{path} is not a model manifest")
    return data


def load_model(directory: Path | str, kind: str,
               trusted: Iterable[str] = ()) -> tuple[Any, dict[str, Any]]:  # fmt: skip
    """Load (model, manifest) from a model directory made by ``save_model``.

    ModelError when the directory holds no model of ``kind``, the model was made
    with incompatible library versions, or its file is not in the safe format or
    names a type outside its allowlist (a pickled ``model.joblib`` is never read);
    the message names the command that rebuilds it. ``trusted``: types beyond the
    safe format's allowlist that this kind of model holds (as given to ``save_model``).
    """
    d = Path(directory)
    hint = _TRAIN_HINT.get(kind, "formhunter train " + kind + " --out {dir}").format(dir=d)
    manifest = read_manifest(d)
    if manifest.get("kind") != kind:
        raise ModelError(f"{d} holds a {manifest.get('kind')!r} model, not {kind!r}")
    problems = compatible(manifest.get("versions", {}))
    if problems:
        raise ModelError(
            f"the {kind} model in {d} was made with incompatible libraries: "
            f"{'; '.join(problems)}. Retrain it: {hint}"
        )
    from classifiers import safe_format

    path = d / MODEL_FILE
    if not path.is_file():
        if (d / OLD_MODEL_FILE).exists():
            raise ModelError(
                f"{d} holds a pickled model ({OLD_MODEL_FILE}), which could run code when "
                f"loaded; formhunter loads only its safe format ({MODEL_FILE}). Retrain it: "
                f"{hint} (or, for a model you made yourself: python "
                f"scripts/convert_pickled_models.py {d})")
        raise ModelError(f"{path} is missing; retrain: {hint}")
    try:
        model = safe_format.loads(path.read_bytes(), trusted=trusted)
    except (OSError, safe_format.UnsafeFormatError) as exc:
        raise ModelError(f"cannot load {path} ({exc}); retrain: {hint}") from None
    return model, manifest


# --- evaluation baselines (the CI gate) ----------------------------------------

BASELINES = Path(__file__).resolve().parents[1] / "data" / "baselines.json"


def read_baselines(path: Path | str | None = None) -> dict[str, Any]:
    """data/baselines.json: per model kind, the metric, its floor, the data hash."""
    p = Path(path) if path is not None else BASELINES
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    if not isinstance(data, dict):
        raise ModelError(f"{p} is not a baselines file")
    return data


def pin_baseline(
    kind: str,
    *,
    metric: str,
    measured: float,
    data_hash: str,
    floor: float | None = None,
    allow_lower: bool = False,
    path: Path | str | None = None,
    per_label: dict[str, float] | None = None,
    label_floor: float = 0.75,
    per_label_metrics: dict[str, dict[str, float]] | None = None,
) -> dict[str, Any]:
    """Record the measured value and data hash for ``kind``; set the floor if given.

    A floor below the pinned one needs ``allow_lower`` (the explicit flag);
    a measured value below the floor is refused. ``per_label`` (label -> measured
    F1, the domain model's) pins a floor per label too (``per_label_floors``);
    ``per_label_metrics`` (label -> {metric: measured}, e.g. the page classifier's
    precision and recall) pins one per label and metric the same way, kept under
    ``per_label[label][metric]``.
    """
    p = Path(path) if path is not None else BASELINES
    data = read_baselines(p)
    entry = dict(data.get(kind, {}))
    old = entry.get("floor")
    new_floor = float(floor) if floor is not None else old
    if new_floor is None:
        raise ModelError(f"no floor pinned for {kind}; give one")
    if old is not None and new_floor < float(old) and not allow_lower:
        raise ModelError(
            f"lowering the {kind} floor from {old} to {new_floor} needs --allow-lower-floor"
        )
    if measured < new_floor:
        raise ModelError(f"{kind} {metric} {measured:.4f} is below the floor {new_floor}")
    entry.update(metric=metric, floor=new_floor, measured=round(measured, 4), data_hash=data_hash)
    if per_label is not None:
        old_labels = entry.get("per_label", {})
        entry["per_label"] = per_label_floors(per_label, label_floor, old_labels)
        for label, values in sorted((per_label_metrics or {}).items()):
            for name, value in sorted(values.items()):
                prev = {label: old_labels.get(label, {}).get(name, {})}
                got = per_label_floors({label: value}, label_floor, prev)[label]
                entry["per_label"].setdefault(label, {})[name] = got
    data[kind] = entry
    p.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return entry


def per_label_floors(
    measured: dict[str, float], goal: float, old: dict[str, Any]
) -> dict[str, dict[str, float]]:
    """Per label: its measured F1 and a floor, ``goal`` or, for a label measured below
    the goal, the measured value rounded down to 0.01 (so that it cannot get worse),
    and never under a floor pinned before unless it was measured below that one."""
    out = {}
    for label, value in sorted(measured.items()):
        floor = goal if value >= goal else int(value * 100) / 100
        prev = old.get(label, {}).get("floor")
        if prev is not None and value >= float(prev):
            floor = max(floor, float(prev))
        out[label] = {"floor": round(floor, 4), "measured": round(value, 4)}
    return out
