"""Convert model directories from the old pickled ``model.joblib`` to ``model.npz``.

    python scripts/convert_pickled_models.py data/models [more dirs...]
    python scripts/convert_pickled_models.py --check DIR   # compare, write nothing

Unpickles each ``model.joblib`` under the given directories, so run it only on
models you made yourself (the shipped ones in data/models were converted by
this script). Writes ``model.npz`` in ``classifiers.safe_format``, adds the
format and the file's sha256 to the manifest (every other manifest field, the
metrics included, stays as it was) and removes the pickle, but only once the
model read back from ``model.npz`` is deep-equal to the pickled one, attribute
by attribute (arrays by dtype, shape and value; extension types by their state);
a difference is printed with its path and nothing of that directory is changed.
A directory that already holds ``model.npz`` and a pickle (``--check``) is compared
the same way. Prints one line per model and exits 1 when any model differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import types
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import scipy.sparse as sp

from classifiers import safe_format
from classifiers.persist import MANIFEST, MODEL_FILE, OLD_MODEL_FILE
from formhunter.tres.policy import POLICY_TYPES


def differences(a: Any, b: Any, path: str = "model", seen: set[tuple[int, int]] | None = None,
                out: list[str] | None = None) -> list[str]:  # fmt: skip
    """Where ``a`` and ``b`` differ (empty: deep-equal), at most 20 places."""
    seen = set() if seen is None else seen
    out = [] if out is None else out
    if len(out) >= 20 or (id(a), id(b)) in seen:
        return out
    seen.add((id(a), id(b)))
    if type(a) is not type(b):
        out.append(f"{path}: {type(a).__name__} != {type(b).__name__}")
    elif isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            out.append(f"{path}: array {a.dtype}{a.shape} != {b.dtype}{b.shape}")
        elif a.dtype.hasobject:
            for i, (x, y) in enumerate(zip(a.ravel(), b.ravel(), strict=True)):
                differences(x, y, f"{path}[{i}]", seen, out)
        elif not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
            out.append(f"{path}: array values differ")
    elif sp.issparse(a):
        if a.shape != b.shape or a.dtype != b.dtype or (a != b).nnz:
            out.append(f"{path}: sparse matrix differs")
    elif isinstance(a, float | np.floating):
        if not (a == b or (math.isnan(a) and math.isnan(b))):
            out.append(f"{path}: {a!r} != {b!r}")
    elif isinstance(a, np.random.RandomState):
        differences(a.get_state(legacy=False), b.get_state(legacy=False), path, seen, out)
    elif isinstance(a, np.random.Generator):
        differences(a.bit_generator.state, b.bit_generator.state, path, seen, out)
    elif isinstance(a, dict):
        if list(a) != list(b):
            only = [str(k) for k in a if k not in b][:5], [str(k) for k in b if k not in a][:5]
            out.append(f"{path}: keys differ (only before: {only[0]}, only after: {only[1]})")
        else:
            for k in a:
                differences(a[k], b[k], f"{path}[{k!r}]", seen, out)
    elif isinstance(a, list | tuple):
        if len(a) != len(b):
            out.append(f"{path}: length {len(a)} != {len(b)}")
        else:
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                differences(x, y, f"{path}[{i}]", seen, out)
    elif isinstance(a, type | types.FunctionType | types.BuiltinFunctionType | types.ModuleType):
        if a is not b:
            out.append(f"{path}: {a!r} is not {b!r}")
    elif isinstance(a, str | bytes | int | bool | complex | set | frozenset | type(None)
                    | np.generic | np.dtype):  # fmt: skip
        if a != b:
            out.append(f"{path}: {a!r} != {b!r}")
    elif hasattr(a, "__dict__") or hasattr(a, "__getstate__"):
        sa, sb = _state(a), _state(b)
        differences(sa, sb, path, seen, out)
    elif a != b:
        out.append(f"{path}: {a!r} != {b!r}")
    return out


def _state(obj: Any) -> Any:
    """What pickle saves of ``obj`` (its reduce arguments and state)."""
    reduced = obj.__reduce_ex__(4)
    if isinstance(reduced, str):
        return reduced
    parts = list(reduced[1:3]) if len(reduced) > 2 else list(reduced[1:])
    return [p for p in parts if not callable(p)]


def convert(directory: Path, check_only: bool) -> bool:
    """Convert (or with ``check_only`` compare) one directory; True when deep-equal."""
    pickled = joblib.load(directory / OLD_MODEL_FILE)
    if check_only and (directory / MODEL_FILE).is_file():
        data = (directory / MODEL_FILE).read_bytes()
    else:
        try:
            data = safe_format.dumps(pickled, trusted=POLICY_TYPES)
        except safe_format.UnsafeFormatError as exc:
            print(f"{directory}: NOT CONVERTED: {exc}")
            return False
    back = safe_format.loads(data, trusted=POLICY_TYPES)
    diff = differences(pickled, back)
    status = "deep-equal" if not diff else f"DIFFERS: {'; '.join(diff)}"
    print(f"{directory}: {len(data):,} bytes ({(directory / OLD_MODEL_FILE).stat().st_size:,} "
          f"pickled), {type(pickled).__name__}, {status}")  # fmt: skip
    if diff or check_only:
        return not diff
    manifest_path = directory / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["format"] = f"{safe_format.FORMAT}-{safe_format.VERSION}"
    manifest["model_sha256"] = hashlib.sha256(data).hexdigest()
    tmp = directory / (MODEL_FILE + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, directory / MODEL_FILE)
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n")
    os.remove(directory / OLD_MODEL_FILE)
    return True


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*", default=["data/models"])
    ap.add_argument("--check", action="store_true", help="compare only, change nothing")
    args = ap.parse_args(argv)
    ok = n = 0
    for root in args.dirs:
        for pickled in sorted(Path(root).rglob(OLD_MODEL_FILE)):
            n += 1
            ok += convert(pickled.parent, args.check)
    print(f"{ok} of {n} models deep-equal to their pickle")
    return 0 if ok == n else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
