#!/usr/bin/env bash
# Installs the C libraries Proactive links (OpenBLAS with CBLAS, LAPACKE, libpq), and
# the tools the service checks and load use (curl, sqlite3, wrk, time), when
# they are missing. Debian/Ubuntu; needs root or sudo only when installing.
set -euo pipefail
packages=(libopenblas-dev liblapacke-dev libpq-dev libsqlite3-dev pkg-config curl sqlite3 wrk time)  # curl, sqlite3: scripts/serve-checks.sh; wrk, time: dev/load-serve.sh
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing system packages: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
