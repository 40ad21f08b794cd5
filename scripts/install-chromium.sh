#!/usr/bin/env bash
# Installs Debian's chromium for rendering (Playwright drives it through
# executable_path; `playwright install` cannot download here). Best effort:
# formhunter runs without it and says so.
set -u
for c in chromium chromium-browser google-chrome; do
    command -v "$c" >/dev/null 2>&1 && exit 0
done
if [ "$(id -u)" != 0 ]; then
    echo "chromium not found; install it (apt-get install chromium) to render JavaScript-built forms" >&2
    exit 1
fi
command -v apt-get >/dev/null 2>&1 || exit 1
apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
