"""A file format for fitted estimators and learner states that cannot run code when read.

``dumps(obj)`` writes an ``.npz`` archive (numpy, read back with
``allow_pickle=False``): one member ``__tree__`` holds a JSON tree with a format
name and version, the other members hold the numeric arrays the tree points at.
``loads(data)`` rebuilds the objects. Unlike a pickle, the file names no code to
call: the tree may only name classes and functions of an allowlist
(``TRUSTED``, plus the ``trusted`` names the caller adds), looked up by their
exact qualified name. A class is rebuilt as pickle would rebuild it (``__new__``
or, for the extension types that reduce to their class, the class itself, then
``__setstate__`` or its ``__dict__``); a name outside the allowlist is refused
with ``UnsafeFormatError`` before anything is imported or built. ``dumps``
refuses the same names, so a model that saves also loads.

Shared references and cycles survive (a memo, as in pickle). Object arrays are
stored element by element; numeric, string and structured arrays as ``.npy``.

An estimator of a type not listed here fails at save time with a message naming
the type: add it to ``TRUSTED`` once you have checked that rebuilding it from
attributes runs nothing of the file's choosing (classes store data; functions
listed here are called by the models with the model's own inputs).
"""

from __future__ import annotations

import base64
import copyreg
import dataclasses
import importlib
import io
import json
import random
import re
import zipfile
import zlib
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import numpy as np

from classifiers.exceptions import ClassifierError

__all__ = ["FORMAT", "TRUSTED", "VERSION", "UnsafeFormatError", "dumps", "is_safe_format",
           "loads"]  # fmt: skip

FORMAT = "formhunter-safe"
VERSION = 1
#: the zip local-file magic every npz starts with
_ZIP_MAGIC = b"PK\x03\x04"

#: Classes and functions a saved tree may name (exact ``module.qualname``).
TRUSTED: frozenset[str] = frozenset({
    # formhunter's estimators and their parts
    "classifiers.apprentice.Apprentice",
    "classifiers.context.ContextBundle",
    "classifiers.context.DomainContextModel",
    "classifiers.context.PageTopics",
    "classifiers.domain.DomainFormClassifier",
    "classifiers.form_features.FormStructure",
    "classifiers.form_features.FormText",
    "classifiers.form_features.FormSample",
    "classifiers.form_signals.FormSample",
    "classifiers.form_features.HostWords",
    "classifiers.form_features.SiteKeywords",
    "classifiers.form_features.StemTokenizer",
    "classifiers.link_classifier.MultiLevelLinkClassifier",
    "classifiers.link_features.LinkFeatureSelector",
    "classifiers.page_classifier.PageTopicClassifier",
    "classifiers.q_network.QNetwork",
    "classifiers.searchable.SearchableFormClassifier",
    "classifiers.searchable._log1p",
    "classifiers.lexicon.concept_terms",
    "classifiers.text._Terms",
    "classifiers.text.stem_terms",
    "classifiers.url_scorer.ConservativeURLScorer",
    "classifiers.url_scorer.TokenPools",
    "collections.Counter",
    "collections.deque",
    # scikit-learn
    "sklearn._loss._loss.CyHalfBinomialLoss",
    "sklearn._loss.link.Interval",
    "sklearn._loss.link.LogitLink",
    "sklearn._loss.loss.HalfBinomialLoss",
    "sklearn.ensemble._hist_gradient_boosting.binning._BinMapper",
    "sklearn.ensemble._hist_gradient_boosting.gradient_boosting.HistGradientBoostingClassifier",
    "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
    "sklearn.calibration.CalibratedClassifierCV",
    "sklearn.calibration._CalibratedClassifier",
    "sklearn.calibration._SigmoidCalibration",
    "sklearn.ensemble._forest.ExtraTreesClassifier",
    "sklearn.ensemble._forest.RandomForestClassifier",
    "sklearn.ensemble._gb.GradientBoostingClassifier",
    "sklearn.feature_extraction.text.CountVectorizer",
    "sklearn.feature_extraction.text.HashingVectorizer",
    "sklearn.feature_extraction.text.TfidfTransformer",
    "sklearn.feature_extraction.text.TfidfVectorizer",
    "sklearn.feature_extraction._dict_vectorizer.DictVectorizer",
    "sklearn.linear_model._logistic.LogisticRegression",
    "sklearn.linear_model._stochastic_gradient.SGDClassifier",
    "sklearn.linear_model._stochastic_gradient.SGDRegressor",
    "sklearn.naive_bayes.BernoulliNB",
    "sklearn.naive_bayes.GaussianNB",
    "sklearn.naive_bayes.ComplementNB",
    "sklearn.naive_bayes.MultinomialNB",
    "sklearn.pipeline.FeatureUnion",
    "sklearn.pipeline.Pipeline",
    "sklearn.preprocessing._data.MaxAbsScaler",
    "sklearn.preprocessing._data.StandardScaler",
    "sklearn.preprocessing._function_transformer.FunctionTransformer",
    "sklearn.preprocessing._label.LabelEncoder",
    "sklearn.svm._classes.LinearSVC",
    "sklearn.tree._classes.DecisionTreeClassifier",
    "sklearn.tree._classes.DecisionTreeRegressor",
    "sklearn.tree._classes.ExtraTreeClassifier",
    "sklearn.tree._tree.Tree",
    "sklearn.dummy.DummyClassifier",
    "sklearn.utils._bunch.Bunch",
    # scipy sparse matrices (data, indices, shape)
    "scipy.sparse._csr.csr_matrix",
    "scipy.sparse._csc.csc_matrix",
    "scipy.sparse._coo.coo_matrix",
    "scipy.sparse._csr.csr_array",
    # nltk's stemmer (tables of strings)
    "nltk.stem.porter.PorterStemmer",
    # numpy types passed as parameters (``dtype=np.float64``) and bit generators
    "numpy.float64", "numpy.float32", "numpy.int64", "numpy.int32", "numpy.bool_", "numpy.bool",
    "numpy.log1p",
})  # fmt: skip

_NEWOBJ: Any = copyreg.__dict__["__newobj__"]  # what pickle's protocol 2+ reduces through
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


class UnsafeFormatError(ClassifierError, ValueError):
    """The data is not in the safe format, or names a type outside the allowlist."""


def is_safe_format(data: bytes) -> bool:
    """Whether ``data`` starts like a safe-format archive (not a pickle)."""
    return data[:4] == _ZIP_MAGIC


def _name(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"


class _Encoder:
    def __init__(self, trusted: frozenset[str]) -> None:
        self.trusted = trusted
        self.arrays: list[np.ndarray] = []
        self.memo: dict[int, int] = {}
        self.keep: list[Any] = []  # keeps memoised objects alive (ids stay unique)

    def check(self, name: str) -> str:
        if name not in self.trusted:
            raise UnsafeFormatError(
                f"{name} is not in the safe format's allowlist (classifiers.safe_format"
                ".TRUSTED); add it there once rebuilding it from data is known to be safe")
        return name

    def enc(self, v: Any) -> Any:
        if v is None or isinstance(v, bool | str) or type(v) in (int, float):
            return v
        key = id(v)
        if key in self.memo:
            return {"$": "ref", "v": self.memo[key]}
        ident = len(self.memo)
        self.memo[key] = ident
        self.keep.append(v)
        node = self._node(v)
        node["id"] = ident
        return node

    def _node(self, v: Any) -> dict[str, Any]:
        t = type(v)
        if t is list:
            if _plain(v):  # the common case of a long column: no node per item
                return {"$": "list", "p": 1, "v": v}
            return {"$": "list", "v": [self.enc(x) for x in v]}
        if t is tuple:
            return {"$": "tuple", "v": [self.enc(x) for x in v]}
        if t is dict and all(type(k) is str for k in v):
            return {"$": "dict", "v": {k: self.enc(x) for k, x in v.items()}}
        if t in (dict, OrderedDict):
            return {"$": "odict" if t is OrderedDict else "pairs",
                    "v": [[self.enc(k), self.enc(x)] for k, x in v.items()]}
        if t in (set, frozenset):
            return {"$": t.__name__, "v": [self.enc(x) for x in v]}
        if t is bytes:
            return {"$": "bytes", "v": base64.b64encode(v).decode("ascii")}
        if t is int or t is float:  # subclasses of int/float never get here
            return {"$": "num", "v": v}
        if t is np.ndarray:
            if v.dtype.hasobject:
                return {"$": "ndo", "shape": list(v.shape),
                        "v": [self.enc(x) for x in v.ravel().tolist()]}
            self.arrays.append(v)
            return {"$": "nd", "v": len(self.arrays) - 1}
        if isinstance(v, np.generic):
            if v.dtype.hasobject:
                raise UnsafeFormatError("a numpy object scalar is not storable")
            if v.dtype.kind in "biuf":  # inline: a vocabulary holds many of them
                return {"$": "npnum", "dtype": v.dtype.str, "v": v.item()}
            arr = np.asarray(v).reshape(1)
            self.arrays.append(arr)
            return {"$": "npscalar", "v": len(self.arrays) - 1}
        if t is np.dtype or isinstance(v, np.dtype):
            return {"$": "dtype", "v": self.enc(np.lib.format.dtype_to_descr(v))}
        if t is re.Pattern:
            return {"$": "re", "v": v.pattern, "flags": v.flags}
        if t is random.Random:
            return {"$": "pyrandom", "v": self.enc(v.getstate())}
        if t is np.random.Generator:
            bg = v.bit_generator
            return {"$": "npgen", "bg": type(bg).__name__, "v": self.enc(bg.state)}
        if t is np.random.RandomState:
            return {"$": "randomstate", "v": self.enc(v.get_state(legacy=False))}
        if isinstance(v, type) or _is_function(v):
            return {"$": "name", "v": self.check(_name(v))}
        return self._object(v)

    def _object(self, v: Any) -> dict[str, Any]:
        name = self.check(_name(type(v)))
        fields = _slot_fields(type(v))
        if fields is not None:  # a slots dataclass: its fields in order (fast, compact)
            return {"$": "rec", "cls": name, "v": [self.enc(getattr(v, f)) for f in fields]}
        reduced = v.__reduce_ex__(4)
        if isinstance(reduced, str):
            raise UnsafeFormatError(f"{name} reduces to a global name; not storable")
        func, args, *rest = (*reduced, None, None, None)[:5]
        if func is _NEWOBJ:
            if args[0] is not type(v):
                raise UnsafeFormatError(f"{name} is rebuilt as another class; not storable")
            how, args = "new", args[1:]
        elif func is type(v):
            how = "call"
        else:
            raise UnsafeFormatError(f"{name} is rebuilt by {_name(func)}; not storable")
        state, listitems, dictitems = rest[0], rest[1], rest[2]
        node: dict[str, Any] = {"$": "obj", "cls": name, "how": how,
                                "args": [self.enc(a) for a in args], "state": self.enc(state)}
        if listitems is not None:
            node["items"] = [self.enc(x) for x in listitems]
        if dictitems is not None:
            node["pairs"] = [[self.enc(k), self.enc(x)] for k, x in dictitems]
        return node


_PLAIN = frozenset({str, int, float, bool, type(None)})
#: the collections a node of these kinds rebuilds
_COLLECTIONS: dict[str, Any] = {"tuple": tuple, "set": set, "frozenset": frozenset}


def _plain(items: list[Any]) -> bool:
    """Whether every item is a JSON scalar (stored as is)."""
    return all(map(_PLAIN.__contains__, map(type, items)))


_SLOT_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _slot_fields(cls: type) -> tuple[str, ...] | None:
    """The field names of a slots dataclass (None for any other class)."""
    if cls not in _SLOT_FIELDS:
        slots = "__slots__" in cls.__dict__ and "__dict__" not in dir(cls)
        _SLOT_FIELDS[cls] = (tuple(f.name for f in dataclasses.fields(cls))
                             if slots and dataclasses.is_dataclass(cls) else None)  # fmt: skip
    return _SLOT_FIELDS[cls]


def _is_function(v: Any) -> bool:
    return type(v).__name__ in ("function", "builtin_function_or_method", "ufunc")


def dumps(obj: Any, *, trusted: Iterable[str] = (), compress: bool = True) -> bytes:
    """``obj`` in the safe format; UnsafeFormatError for a type outside the allowlist."""
    enc = _Encoder(TRUSTED | frozenset(trusted))
    root = enc.enc(obj)
    tree = json.dumps({"format": FORMAT, "version": VERSION, "root": root},
                      separators=(",", ":")).encode("utf-8")  # fmt: skip
    members: dict[str, Any] = {"__tree__": np.frombuffer(tree, np.uint8)}
    members.update({f"a{i}": a for i, a in enumerate(enc.arrays)})
    buf = io.BytesIO()
    if compress:
        np.savez_compressed(buf, **members)
    else:
        np.savez(buf, **members)
    return buf.getvalue()


class _Decoder:
    def __init__(self, arrays: Any, trusted: frozenset[str]) -> None:
        self.arrays = arrays
        self.trusted = trusted
        self.memo: dict[int, Any] = {}

    def resolve(self, name: Any) -> Any:
        if not isinstance(name, str) or name not in self.trusted:
            raise UnsafeFormatError(f"the data names {name!r}, which is not allowed")
        module, _, qual = name.rpartition(".")
        parts = [module, qual]
        # the qualname may hold dots only for nested classes: none of the allowlist's
        obj: Any = importlib.import_module(parts[0])
        for attr in parts[1].split("."):
            obj = getattr(obj, attr)
        return obj

    def array(self, index: Any) -> np.ndarray:
        if not isinstance(index, int) or isinstance(index, bool):
            raise UnsafeFormatError("an array reference is not an index")
        try:
            return self.arrays[f"a{index}"]
        except KeyError:
            raise UnsafeFormatError(f"array a{index} is missing") from None

    def dec(self, node: Any) -> Any:
        if node is None or isinstance(node, bool | int | float | str):
            return node
        if not isinstance(node, dict) or "$" not in node:
            raise UnsafeFormatError("a node of the tree is malformed")
        kind, v = node["$"], node.get("v")
        if kind == "ref":
            if v not in self.memo:
                raise UnsafeFormatError("a reference points at nothing")
            return self.memo[v]
        ident = node.get("id")
        if kind == "list":
            out: Any = self._keep(ident, [])
            if node.get("p") == 1:
                if not _plain(_seq(v)):
                    raise UnsafeFormatError("a plain list holds nodes")
                out.extend(v)
            else:
                out.extend(self.dec(x) for x in _seq(v))
        elif kind == "dict":
            if not isinstance(v, dict):
                raise UnsafeFormatError("a dict node is malformed")
            out = self._keep(ident, {})
            values = list(v.values())
            if _plain(values):  # no node to rebuild
                out.update(v)
            elif (numbers := self._integers(values)) is not None:  # a fitted vocabulary
                out.update(zip(v, numbers, strict=True))
            else:
                for k, x in v.items():
                    out[k] = self.dec(x)
        elif kind in ("pairs", "odict"):
            out = self._keep(ident, {} if kind == "pairs" else OrderedDict())
            for pair in _seq(v):
                k, x = _pair(pair)
                out[self.dec(k)] = self.dec(x)
        elif kind == "obj":
            return self._object(node, ident)
        elif kind == "rec":
            return self._record(node, ident)
        else:
            out = self._keep(ident, self._value(kind, v, node))
        return out

    def _integers(self, nodes: list[Any]) -> list[Any] | None:
        """The numpy integers of ``nodes`` when all are "npnum" nodes of one integer dtype
        (a vectorizer's vocabulary: term -> np.int64), built at once; else None."""
        first = nodes[0] if nodes else None
        if type(first) is not dict or first.get("$") != "npnum":
            return None
        name = first.get("dtype")
        if not all(type(n) is dict and n.get("$") == "npnum" and n.get("dtype") == name
                   and type(n.get("v")) is int for n in nodes):  # fmt: skip
            return None
        dtype = np.dtype(str(name))
        if dtype.kind not in "iu":
            return None
        values = list(np.array([n["v"] for n in nodes], dtype=dtype))
        for n, x in zip(nodes, values, strict=True):
            self._keep(n.get("id"), x)
        return values

    def _keep(self, ident: Any, value: Any) -> Any:
        if not isinstance(ident, int) or ident in self.memo:
            raise UnsafeFormatError("a node id is missing or repeated")
        self.memo[ident] = value
        return value

    def _value(self, kind: str, v: Any, node: dict[str, Any]) -> Any:
        if kind in _COLLECTIONS:
            items = _seq(v)  # plain items (a fitted vectorizer's stop_words_): as they are
            return _COLLECTIONS[kind](items if _plain(items) else map(self.dec, items))
        if kind == "bytes":
            return base64.b64decode(str(v))
        if kind == "num":
            return v
        if kind == "nd":
            return self.array(v)
        if kind == "npscalar":
            return self.array(v)[0]
        if kind == "npnum":
            dtype = np.dtype(str(node.get("dtype")))
            if dtype.kind not in "biuf" or not isinstance(v, bool | int | float):
                raise UnsafeFormatError("a number node is malformed")
            return dtype.type(v)
        if kind == "ndo":
            items = [self.dec(x) for x in _seq(v)]
            shape = tuple(int(s) for s in _seq(node.get("shape")))
            arr = np.empty(len(items), dtype=object)
            arr[:] = items
            return arr.reshape(shape)
        if kind == "dtype":
            return np.lib.format.descr_to_dtype(self.dec(v))
        if kind == "name":
            return self.resolve(v)
        if kind == "re":
            flags = node.get("flags")
            if not isinstance(v, str | bytes) or not isinstance(flags, int):
                raise UnsafeFormatError("a pattern node is malformed")
            return re.compile(v, flags)
        if kind == "pyrandom":
            r = random.Random()
            r.setstate(_tuplify(self.dec(v)))
            return r
        if kind == "npgen":
            bg_name = node.get("bg")
            if bg_name not in _BIT_GENERATORS:
                raise UnsafeFormatError(f"unknown bit generator {bg_name!r}")
            bg = getattr(np.random, bg_name)()
            bg.state = self.dec(v)
            return np.random.Generator(bg)
        if kind == "randomstate":
            rs = np.random.RandomState()
            rs.set_state(self.dec(v))
            return rs
        raise UnsafeFormatError(f"unknown node kind {kind!r}")

    def _record(self, node: dict[str, Any], ident: Any) -> Any:
        cls = self.resolve(node.get("cls"))
        fields = _slot_fields(cls) if isinstance(cls, type) else None
        values = _seq(node.get("v"))
        if fields is None or len(values) != len(fields):
            raise UnsafeFormatError(f"{node.get('cls')} is not a record of {len(values)} fields")
        obj = self._keep(ident, cls.__new__(cls))
        for f, x in zip(fields, values, strict=True):
            object.__setattr__(obj, f, self.dec(x))
        return obj

    def _object(self, node: dict[str, Any], ident: Any) -> Any:
        cls = self.resolve(node.get("cls"))
        if not isinstance(cls, type):
            raise UnsafeFormatError(f"{node.get('cls')} is not a class")
        if node.get("how") == "new":
            args = [self.dec(a) for a in _seq(node.get("args"))]
            obj = cls.__new__(cls, *args)
        elif node.get("how") == "call":
            obj = cls(*[self.dec(a) for a in _seq(node.get("args"))])
        else:
            raise UnsafeFormatError("an object node is malformed")
        self._keep(ident, obj)
        state = self.dec(node.get("state"))
        if state is not None:
            setstate = getattr(obj, "__setstate__", None)
            if setstate is not None:
                setstate(state)
            else:
                slots = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slots = state
                if state:
                    obj.__dict__.update(state)
                for k, x in (slots or {}).items():
                    object.__setattr__(obj, k, x)  # frozen dataclasses too
        for x in _seq(node.get("items") or []):
            obj.append(self.dec(x))
        for pair in _seq(node.get("pairs") or []):
            k, x = _pair(pair)
            obj[self.dec(k)] = self.dec(x)
        return obj


def _seq(v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise UnsafeFormatError("a list node is malformed")
    return v


def _pair(v: Any) -> tuple[Any, Any]:
    if not isinstance(v, list) or len(v) != 2:
        raise UnsafeFormatError("a pair node is malformed")
    return v[0], v[1]


def _tuplify(v: Any) -> Any:
    return tuple(_tuplify(x) for x in v) if isinstance(v, list | tuple) else v


def loads(data: bytes, *, trusted: Iterable[str] = ()) -> Any:
    """The object ``dumps`` wrote; UnsafeFormatError for anything else (a pickle, a
    damaged archive, a name outside the allowlist). Nothing in ``data`` is executed."""
    if not is_safe_format(data):
        raise UnsafeFormatError("not in the safe format (an old pickle, or another file)")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError, KeyError, zlib.error) as exc:
        raise UnsafeFormatError(f"a damaged safe-format archive ({exc})") from None
    tree_bytes = arrays.pop("__tree__", None)
    if tree_bytes is None or tree_bytes.dtype != np.uint8:
        raise UnsafeFormatError("the archive has no tree")
    try:
        tree = json.loads(tree_bytes.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise UnsafeFormatError(f"the archive's tree is unreadable ({exc})") from None
    if (not isinstance(tree, dict) or tree.get("format") != FORMAT
            or tree.get("version") != VERSION):  # fmt: skip
        raise UnsafeFormatError(f"not a {FORMAT} version {VERSION} archive")
    dec = _Decoder(arrays, TRUSTED | frozenset(trusted))
    try:
        return dec.dec(tree.get("root"))
    except UnsafeFormatError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise UnsafeFormatError(f"the archive's tree does not rebuild ({exc})") from None
