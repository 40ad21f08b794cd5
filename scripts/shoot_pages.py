"""Screenshots of pages of a running ``formhunter serve`` in headless chromium.

    python scripts/shoot_pages.py http://127.0.0.1:8765 OUT_DIR name=/path [name=/path ...]

Each ``name=/path`` is saved as ``OUT_DIR/name.png`` (1440x900 viewport, full page).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from formhunter.fetch.render import find_chromium


async def shoot(base: str, out: Path, shots: list[tuple[str, str]]) -> None:
    from playwright.async_api import async_playwright

    out.mkdir(parents=True, exist_ok=True)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=find_chromium("/usr/bin/chromium"), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])  # fmt: skip
        page = await browser.new_page(viewport={"width": 1440, "height": 900})
        for name, path in shots:
            await page.goto(base + path, wait_until="networkidle")
            await page.screenshot(path=str(out / f"{name}.png"), full_page=True)
            print(out / f"{name}.png")
        await browser.close()


if __name__ == "__main__":
    base, out, *pairs = sys.argv[1:]
    asyncio.run(shoot(base.rstrip("/"), Path(out), [tuple(p.split("=", 1)) for p in pairs]))  # type: ignore[misc]
