"""The headless browser a ``Renderer`` drives: where chromium is (``find_chromium``) and
how it is launched and locked down so that it has no network of its own
(``LAUNCH_ARGS``, ``BLACKHOLE_PROXY``, ``LOCKDOWN_JS``; ``formhunter.fetch.render``'s
module doc says how requests are intercepted).

Paths that are not HTTP requests are closed: WebRTC may send no UDP that bypasses the
proxy (``--webrtc-ip-handling-policy=disable_non_proxied_udp``, so none at all), QUIC,
DNS prefetch, pings, media-router discovery and service workers are off, and
``LOCKDOWN_JS`` removes the WebRTC, WebSocket and WebTransport constructors before any
page script runs."""

from __future__ import annotations

import os
import shutil

from formhunter.exceptions import RenderUnavailable

#: Flags of every launch (Playwright adds --headless and a fresh --user-data-dir).
LAUNCH_ARGS = (
    "--headless",
    "--no-sandbox",  # we run as root in containers; chromium refuses the sandbox then
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--dns-prefetch-disable",
    # WebRTC: no UDP that does not go through the (black-hole) proxy, i.e. none
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--no-pings",
    # no name is resolved by the browser itself (DNS prefetch, STUN/TURN server names: a
    # lookup can leak data); every request it may make is answered by interception
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--disable-domain-reliability",
    "--disable-features=MediaRouter,DialMediaRouteProvider,CastMediaRouteProvider,"
    "InterestFeedContentSuggestions,OptimizationHints",
    "--mute-audio",
    "--blink-settings=imagesEnabled=false",  # images are not even requested (fewer round trips)
)
#: Names tried on PATH after FORMHUNTER_CHROMIUM and the configured path.
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: Where the browser's own (non-intercepted) traffic would go: a closed port.
BLACKHOLE_PROXY = "http://127.0.0.1:9"
INSTALL_HINT = (
    "install it with `apt-get install chromium` (or `make setup`), or point "
    "FORMHUNTER_CHROMIUM (or render.browser) at a chromium/chrome binary"
)
#: Run before any script of every document (defence in depth behind LAUNCH_ARGS and the
#: black-hole proxy): the APIs that open non-HTTP connections are gone.
LOCKDOWN_JS = """(() => {
  const gone = ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel',
    'RTCIceCandidate', 'RTCSessionDescription', 'RTCIceTransport', 'RTCSctpTransport',
    'WebSocket', 'WebSocketStream', 'WebTransport'];
  for (const name of gone) {
    try { Object.defineProperty(globalThis, name, {value: undefined, writable: false,
                                                    configurable: false}); } catch (e) {}
  }
  const nav = globalThis.navigator;
  if (nav) {
    for (const name of ['serviceWorker', 'mediaDevices']) {
      try { Object.defineProperty(Object.getPrototypeOf(nav), name,
              {get: () => undefined, configurable: false}); } catch (e) {}
    }
  }
})();"""


def find_chromium(configured: str | None = None) -> str:
    """The path of a chromium executable, or raise ``RenderUnavailable``.

    Looked for in this order: ``$FORMHUNTER_CHROMIUM`` (must work if set),
    ``configured`` (e.g. ``render.browser``), then ``chromium``,
    ``chromium-browser``, ``google-chrome``, ``google-chrome-stable`` on PATH.
    """
    env = os.environ.get("FORMHUNTER_CHROMIUM", "").strip()
    if env:
        path = shutil.which(env)
        if path is None:
            raise RenderUnavailable(
                f"FORMHUNTER_CHROMIUM={env} is not an executable; {INSTALL_HINT}"
            )
        return path
    tried = []
    if configured:
        tried.append(configured)
        path = shutil.which(configured)
        if path is not None:
            return path
    for name in BROWSER_NAMES:
        tried.append(name)
        path = shutil.which(name)
        if path is not None:
            return path
    raise RenderUnavailable(f"no chromium found (tried {', '.join(tried)}); {INSTALL_HINT}")
