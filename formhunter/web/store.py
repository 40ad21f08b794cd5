"""Where the web page reads and writes: a catalogue file, or a running crawl's catalogue.

``FileStore`` opens the file read-only for each read and opens it for writing
only for the short transaction of a label (``Catalogue`` migrates an older file
to the schema with ``form_labels`` then). ``SharedStore`` uses a cursor of the
crawl's own connection: the web handlers run on the crawl's event loop, between
its steps, so they never overlap a commit; labels go to their own table, which
the crawl never writes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from formhunter.catalogue import Catalogue, open_for_reading, snapshot_path
from formhunter.dbfile import DUCKDB_CONFIG
from formhunter.exceptions import CatalogueError
from formhunter.labels import has_labels_table


class Store:
    """Connections to one catalogue: ``read()`` for queries, ``write()`` for labels."""

    path: Path

    @contextmanager
    def read(self) -> Iterator[duckdb.DuckDBPyConnection]:
        raise NotImplementedError
        yield  # pragma: no cover

    @contextmanager
    def write(self) -> Iterator[duckdb.DuckDBPyConnection]:
        raise NotImplementedError
        yield  # pragma: no cover


class FileStore(Store):
    """A catalogue file (``formhunter serve``). While a crawl in another process writes
    it, reads go to the snapshot that crawl keeps fresh at its commit points
    (``catalogue.write_snapshot``) and labels are refused; once the crawl ends, to the
    file again."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            with open_for_reading(self.path):  # the clear errors of the open path
                pass
        except CatalogueError as exc:
            if "in use" not in str(exc):
                raise
            raise CatalogueError(
                f"{exc}, and it keeps no snapshot to read ([crawl] snapshot_every_seconds "
                "= 0). To watch a crawl while it writes, start it with "
                "`formhunter crawl ... --ui PORT`: it serves this page itself"
            ) from exc

    @property
    def snapshot(self) -> bool:
        """True when reads go to a crawl's snapshot (the file is locked by it)."""
        try:
            duckdb.connect(str(self.path), read_only=True, config=DUCKDB_CONFIG).close()
        except duckdb.Error:
            return snapshot_path(self.path).is_file()
        return False

    @contextmanager
    def read(self) -> Iterator[duckdb.DuckDBPyConnection]:
        try:
            con = duckdb.connect(str(self.path), read_only=True, config=DUCKDB_CONFIG)
        except duckdb.Error as exc:
            snap = snapshot_path(self.path)
            try:
                if "lock" not in str(exc).lower() or not snap.is_file():
                    raise
                con = duckdb.connect(str(snap), read_only=True, config=DUCKDB_CONFIG)
            except duckdb.Error as exc2:
                raise CatalogueError(f"cannot read {self.path}: "
                                     f"{str(exc2).splitlines()[0]}") from exc2  # fmt: skip
        try:
            yield con
        finally:
            con.close()

    def busy(self) -> str:
        """Why labels are refused while another process holds the file."""
        return (f"a crawl is writing {self.path}; this page shows its snapshot, read-only. "
                "Label on the crawl's own page (`formhunter crawl ... --ui PORT`) or once "
                "the crawl has ended")  # fmt: skip

    @contextmanager
    def write(self) -> Iterator[duckdb.DuckDBPyConnection]:
        try:
            cat = Catalogue(self.path)  # migrates a file older than form_labels
        except CatalogueError as exc:
            if "in use" not in str(exc):
                raise
            raise CatalogueError(self.busy()) from exc
        with cat:
            yield cat.con


class SharedStore(Store):
    """The catalogue a crawl in this process writes (``formhunter crawl --ui``)."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.path = catalogue.path
        self.catalogue = catalogue

    @contextmanager
    def read(self) -> Iterator[duckdb.DuckDBPyConnection]:
        cur = self.catalogue.con.cursor()
        try:
            yield cur
        finally:
            cur.close()

    @contextmanager
    def write(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self.read() as cur:
            if not has_labels_table(cur):
                raise CatalogueError(f"{self.path} has no form_labels table (open it writable)")
            yield cur


class ClusterStore(FileStore):
    """The catalogue a cluster crawl's writer actor holds (``formhunter crawl --workers N
    --ui``): reads go to the snapshot the writer keeps fresh after its commits, labels
    wait for the crawl's end (the page stays up then, on the file itself)."""

    def busy(self) -> str:
        return (f"the cluster's writer holds {self.path} while the crawl runs; this page "
                "shows its snapshot, read-only. Label here once the crawl has ended (the "
                "page stays up)")  # fmt: skip
