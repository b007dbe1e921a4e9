#!/usr/bin/env bash
# A private PostgreSQL cluster for the tests and scripts: initdb in a folder of
# its own, a Unix socket in that folder, no TCP, trust authentication for the
# one role `proactive`, a database `proactive`. Installs Debian's `postgresql`
# when no server is installed (like ensure-system-packages.sh for OpenBLAS).
# The server runs as the calling user, or as `postgres` when called as root
# (initdb refuses root). fsync is off: the cluster is thrown away after the run.
#
# Usage: scripts/postgres-cluster.sh start DIR   creates DIR, starts the server, prints its URL
#        scripts/postgres-cluster.sh url DIR     prints the URL of the cluster in DIR
#        scripts/postgres-cluster.sh stop DIR    stops the server and removes DIR
#        scripts/postgres-cluster.sh available   exit 0 when a server is (or can be) installed,
#                                                else prints why not and exits 1
# The URL names the socket folder as libpq does: postgres://proactive@/proactive?host=DIR
set -euo pipefail

command="${1:-}"
dir="${2:-}"

server_bin() {
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  [ -n "$found" ] && [ -x "$found/initdb" ] && echo "$found"
}

# Why a server cannot be installed here, or nothing when it can (or is).
unavailable_reason() {
  [ -n "$(server_bin)" ] && return 0
  command -v apt-get >/dev/null 2>&1 || { echo "no PostgreSQL server and no apt-get to install one"; return 0; }
  if [ "$(id -u)" -ne 0 ] && ! sudo -n true 2>/dev/null; then
    echo "no PostgreSQL server, and installing one needs root or password-less sudo"
  fi
}

install_server() {
  [ -n "$(server_bin)" ] && return 0
  local reason sudo=""
  reason="$(unavailable_reason)"
  [ -z "$reason" ] || { echo "postgres-cluster: $reason" >&2; exit 1; }
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing system packages: postgresql" >&2
  # Debian's package would create and start a cluster of its own on TCP port 5432; only ours is wanted.
  $sudo mkdir -p /etc/postgresql-common
  [ -e /etc/postgresql-common/createcluster.conf ] || echo "create_main_cluster = false" | $sudo tee /etc/postgresql-common/createcluster.conf >/dev/null
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
  [ -n "$(server_bin)" ] || { echo "postgres-cluster: apt-get installed postgresql but no initdb was found" >&2; exit 1; }
}

# Runs a server program as the cluster's owner.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

url() { echo "postgres://proactive@/proactive?host=$1"; }

need_dir() {
  [ -n "$dir" ] || { echo "usage: $0 $command DIR" >&2; exit 2; }
  dir="$(realpath -m "$dir")"
}

case "$command" in
  available)
    reason="$(unavailable_reason)"
    [ -z "$reason" ] || { echo "$reason"; exit 1; }
    ;;
  start)
    need_dir
    install_server
    bin="$(server_bin)"
    if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
      echo "postgres-cluster: $dir is not empty (stop the cluster there first)" >&2
      exit 1
    fi
    mkdir -p "$dir"
    chmod 700 "$dir"
    [ "$(id -u)" -ne 0 ] || chown postgres: "$dir"
    as_owner "$bin/initdb" --pgdata="$dir/data" --username=proactive --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
      >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bin/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" --wait --silent \
      -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off" start \
      || { cat "$dir/server.log" >&2; exit 1; }
    as_owner "$bin/createdb" --host="$dir" --username=proactive proactive
    url "$dir"
    ;;
  url)
    need_dir
    [ -S "$dir/.s.PGSQL.5432" ] || { echo "postgres-cluster: no server is running in $dir" >&2; exit 1; }
    url "$dir"
    ;;
  stop)
    need_dir
    [ -d "$dir" ] || exit 0
    bin="$(server_bin)"
    if [ -n "$bin" ] && [ -f "$dir/data/postmaster.pid" ]; then
      as_owner "$bin/pg_ctl" --pgdata="$dir/data" --mode=fast --wait --silent stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    sed -n '2,14p' "$0" >&2
    exit 2
    ;;
esac
