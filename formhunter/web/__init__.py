"""The catalogue's web page: runs, a live run, forms (with a sandboxed rendering), labels.

``formhunter serve --db FILE`` serves it on a catalogue file (read-only browsing,
one short write transaction per label); ``formhunter crawl --ui PORT`` serves it
from inside a running crawl, on the crawl's own event loop and catalogue
connection, so DuckDB's single-writer lock is no obstacle. On a cluster
(``--workers N --ui PORT``) the driver serves it from a thread (``thread.UiThread``),
reading the writer actor's snapshot (``ClusterStore``) and the live figures of the
shards' step reports. Every HTML page has a
JSON twin under ``/api/``; filters are query parameters. See ``app.py``.
"""

from formhunter.web.app import WebSettings, make_app, start_ui
from formhunter.web.store import ClusterStore, FileStore, SharedStore, Store

__all__ = ["ClusterStore", "FileStore", "SharedStore", "Store", "WebSettings", "make_app",
           "start_ui"]
