#!/usr/bin/env bash
# browser_test.sh — `make test-browser`: the explorer page checked in a real browser.
#
#   tools/browser_test.sh build/browser_test
#
# Installs Debian's chromium if it is missing (as root; otherwise prints the command),
# then runs the checks of tools/browser_test.cpp on out/phase3/explorer.html, which
# print one line per check and "browser: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
driver=${1:?usage: tools/browser_test.sh <browser_test binary>}

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "chromium is missing: installing Debian's chromium"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
  else
    echo "chromium is missing. Install it with:  sudo apt-get install -y chromium"
    echo "browser: 0 passed, 1 failed"
    exit 1
  fi
fi
exec "$driver" --browser chromium
