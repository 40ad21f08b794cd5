"""WARC files of a crawl (``crawl --warc DIR``) and pages read back from them.

Each answered fetch becomes a WARC/1.1 ``request`` and ``response`` record pair,
gzip-compressed per record (warcio), appended to rotating files
``<dir>/formhunter-r<run>[-<shard>]-<NNNNN>.warc.gz`` that start with a
``warcinfo`` record. The response holds the body as the crawl used it: decoded
(``Content-Encoding`` and ``Transfer-Encoding`` are dropped and ``Content-Length``
is the decoded length), with the status and headers of the last hop; redirects
are followed by the fetcher, so ``WARC-Target-URI`` is the URL that answered and
``WARC-Refers-To-Target-URI`` the one asked for when they differ.

Exactly once, under kills and ``--resume``: records are buffered with the rows of a
commit point and written by a catalogue flusher *inside* the commit's transaction,
which also stores each file's committed length (table ``warc_files``). A process
killed after the write but before the commit leaves bytes that no committed page
owns; on resume ``WarcSink.open`` truncates the file back to its committed length
and deletes files no commit names, and the pages of the lost batch are fetched
(and written) again. A cluster shard keeps files of its own (``shard`` in the name).
"""

from __future__ import annotations

import io
import logging
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from formhunter.exceptions import UsageError

log = logging.getLogger(__name__)

WARC_VERSION = "WARC/1.1"
_DROP = {"content-encoding", "transfer-encoding", "content-length"}
_NAME = re.compile(r"^formhunter-r(\d+)(?:-([A-Za-z0-9_]+))?-(\d{5})\.warc\.gz$")


def _writer(buf: io.BytesIO) -> Any:
    from warcio.warcwriter import WARCWriter

    return WARCWriter(buf, gzip=True, warc_version=WARC_VERSION)


def _http_date(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class WarcFile:
    """A committed WARC file of a run: its name and committed length."""

    name: str
    size: int
    records: int


class WarcSink:
    """Buffers request/response records of a run and writes them at commit points.

    ``add`` is called for each answered fetch; ``flush(con)`` is registered as a
    catalogue flusher (``Catalogue.add_flusher``) and runs inside the commit's
    transaction. ``max_bytes``: a file is closed and the next one started once it
    reaches this size (the records of one commit are never split)."""

    def __init__(self, directory: str | Path, run_id: int, *, shard: str = "",
                 max_bytes: int, user_agent: str) -> None:  # fmt: skip
        if shard and not re.fullmatch(r"[A-Za-z0-9_]+", shard):
            raise UsageError(f"warc: shard name {shard!r} must be letters, digits or _")
        self.dir = Path(directory)
        self.run_id = run_id
        self.shard = shard
        self.max_bytes = max_bytes
        self.user_agent = user_agent
        self._buf = io.BytesIO()
        self._pending = 0
        self._index = 1
        self._size = 0
        self._records = 0
        self.written = 0  # records written by this process

    # -- names --------------------------------------------------------------------

    def _name(self, index: int) -> str:
        tag = f"-{self.shard}" if self.shard else ""
        return f"formhunter-r{self.run_id}{tag}-{index:05d}.warc.gz"

    def _mine(self, name: str) -> int | None:
        """The index of one of this run's (and shard's) files, else None."""
        m = _NAME.match(name)
        if m and int(m.group(1)) == self.run_id and (m.group(2) or "") == self.shard:
            return int(m.group(3))
        return None

    # -- opening ------------------------------------------------------------------

    def open(self, committed: Iterable[WarcFile]) -> None:
        """Make the directory agree with the catalogue's committed files (resume):
        truncate the last committed file to its committed length, delete this run's
        files that no commit names. ``committed``: ``Catalogue.warc_files`` rows."""
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--warc: cannot create {self.dir}: {exc}") from None
        if not os.access(self.dir, os.W_OK):
            raise UsageError(f"--warc: {self.dir} is not writable")
        known = {f.name: f for f in committed}
        last = max((self._mine(n) or 0 for n in known), default=0)
        for p in sorted(self.dir.iterdir()):
            idx = self._mine(p.name)
            if idx is None:
                continue
            f = known.get(p.name)
            if f is None:
                log.warning("warc: removing %s: no commit point wrote it", p)
                p.unlink()
            elif p.stat().st_size > f.size:
                log.warning("warc: truncating %s to its committed %d bytes", p, f.size)
                with p.open("r+b") as fh:
                    fh.truncate(f.size)
        if last:
            f = known[self._name(last)]
            self._index, self._size, self._records = last, f.size, f.records
            if not (self.dir / f.name).exists():
                raise UsageError(f"--warc: {self.dir / f.name} is missing (the catalogue "
                                 f"says {f.size} bytes were committed to it)")  # fmt: skip

    # -- records ------------------------------------------------------------------

    def add(self, url: str, final_url: str, status: int, headers: dict[str, str],
            body: bytes, fetched_at: datetime | None = None) -> None:  # fmt: skip
        """Buffer the request and response records of one answered fetch."""
        from warcio.statusandheaders import StatusAndHeaders

        if status <= 0:
            return
        ts = fetched_at or datetime.now(UTC)
        date = _http_date(ts)
        target = final_url or url
        w = _writer(self._buf)
        path = _request_target(target)
        host = _host_header(target)
        req_headers = StatusAndHeaders(
            f"GET {path} HTTP/1.1",
            [("Host", host), ("User-Agent", self.user_agent), ("Accept", "text/html,*/*;q=0.5")],
            is_http_request=True)  # fmt: skip
        req = w.create_warc_record(target, "request", payload=io.BytesIO(b""), length=0,
                                   http_headers=req_headers,
                                   warc_headers_dict={"WARC-Date": date})  # fmt: skip
        resp_hdrs = [(k, v) for k, v in headers.items() if k.lower() not in _DROP]
        resp_hdrs.append(("Content-Length", str(len(body))))
        resp_headers = StatusAndHeaders(f"{status} {_reason(status)}", resp_hdrs,
                                        protocol="HTTP/1.1")  # fmt: skip
        extra = {"WARC-Date": date}
        if target != url:
            extra["WARC-Refers-To-Target-URI"] = url
        resp = w.create_warc_record(target, "response", payload=io.BytesIO(body),
                                    length=len(body), http_headers=resp_headers,
                                    warc_headers_dict=extra)  # fmt: skip
        req.rec_headers.add_header("WARC-Concurrent-To", resp.rec_headers.get_header(
            "WARC-Record-ID"))  # fmt: skip
        w.write_record(resp)
        w.write_record(req)
        self._pending += 2

    @property
    def pending(self) -> int:
        return self._pending

    def flush(self, con: Any) -> None:
        """Catalogue flusher: append the buffered records to the current file (fsync)
        and record its committed length in ``warc_files``, in the commit's transaction."""
        if not self._pending:
            return
        data = self._buf.getvalue()
        if self._size and self._size + len(data) > self.max_bytes:
            self._index += 1
            self._size = self._records = 0
        name = self._name(self._index)
        path = self.dir / name
        if not self._size:
            data = self._warcinfo(name) + data
            self._pending += 1
        with path.open("ab") as fh:
            if fh.tell() != self._size:  # another writer, or a file changed under us
                fh.truncate(self._size)
                fh.seek(self._size)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        self._size += len(data)
        self._records += self._pending
        self.written += self._pending
        con.execute(
            "DELETE FROM warc_files WHERE run_id = ? AND shard = ? AND file = ?",
            [self.run_id, self.shard, name])  # fmt: skip
        con.execute(
            "INSERT INTO warc_files (run_id, shard, file, bytes, records, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [self.run_id, self.shard, name, self._size, self._records,
             datetime.now(UTC).replace(tzinfo=None)])  # fmt: skip
        self._buf = io.BytesIO()
        self._pending = 0

    def _warcinfo(self, name: str) -> bytes:
        buf = io.BytesIO()
        w = _writer(buf)
        info = {"software": "formhunter", "format": "WARC File Format 1.1",
                "conformsTo": "https://iipc.github.io/warc-specifications/specifications/"
                              "warc-format/warc-1.1/",
                "isPartOf": f"formhunter run {self.run_id}"}  # fmt: skip
        w.write_record(w.create_warcinfo_record(name, info))
        return buf.getvalue()


def _request_target(url: str) -> str:
    rest = url.split("://", 1)[-1]
    i = rest.find("/")
    path = rest[i:] if i >= 0 else "/"
    return path.split("#", 1)[0] or "/"


def _host_header(url: str) -> str:
    rest = url.split("://", 1)[-1]
    return re.split(r"[/?#]", rest, maxsplit=1)[0].rsplit("@", 1)[-1]


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


# -- reading back -------------------------------------------------------------------


@dataclass
class WarcPage:
    """One HTML response read back from a WARC file."""

    url: str
    status: int
    content_type: str
    body: bytes
    date: str


def warc_paths(paths: Iterable[str | Path]) -> list[Path]:
    """The WARC files named, directories expanded to their ``*.warc``/``*.warc.gz``."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.iterdir()
                          if q.name.endswith((".warc", ".warc.gz")) and q.is_file())  # fmt: skip
        else:
            out.append(p)
    return out


def is_warc(path: str | Path) -> bool:
    return str(path).endswith((".warc", ".warc.gz"))


def read_pages(path: str | Path, *, max_bytes: int) -> Iterator[WarcPage]:
    """The HTML responses of one WARC file, streamed; a body over ``max_bytes`` is
    cut there. A damaged file ends with a ``UsageError`` naming it."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{p}: not a regular file")
    try:
        with p.open("rb") as fh:
            for rec in ArchiveIterator(fh):
                if rec.rec_type != "response" or rec.http_headers is None:
                    continue
                ctype = (rec.http_headers.get_header("Content-Type") or "").split(";")[0]
                if ctype.strip().lower() not in ("text/html", "application/xhtml+xml"):
                    continue
                body = rec.content_stream().read(max_bytes)
                status = int((rec.http_headers.get_statuscode() or "0")[:3] or 0)
                yield WarcPage(url=rec.rec_headers.get_header("WARC-Target-URI") or "",
                               status=status, content_type=ctype.strip().lower(), body=body,
                               date=rec.rec_headers.get_header("WARC-Date") or "")  # fmt: skip
    except (ArchiveLoadFailed, OSError, ValueError, EOFError) as exc:
        raise UsageError(f"{p}: not a readable WARC file ({exc})") from None
