# shellcheck shell=bash
# A throw-away PostgreSQL cluster, sourced by tests/bench/store/store_cli.sh and scripts/store-scale.sh:
# initdb (as nobody when run as root: initdb refuses root) into a new temporary folder, the server's
# Unix socket there and no TCP; pg_stop stops it and removes the folder.
#   pg_find || { echo "why: $pg_why"; ...; }   Debian's server binaries (postgresql) and psql
#   pg_start [SERVER OPTIONS...]               sets pg (the folder: host=$pg in a URL) and pg_version
#   pg_stop
pg="" pg_bin="" pg_as=() pg_why="" pg_version=""
pg_find() {
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [[ -z $pg_bin || ! -x $pg_bin/initdb || ! -x $pg_bin/pg_ctl ]] || ! command -v psql >/dev/null; then
    pg_why="no PostgreSQL server here (Debian: postgresql; scripts/setup.sh --tests installs it)"
    return 1
  fi
}
pg_start() {
  pg=$(mktemp -d)
  pg_as=()
  if [[ $EUID == 0 ]]; then chown nobody "$pg" && pg_as=(runuser -u nobody --); fi
  "${pg_as[@]}" "$pg_bin/initdb" -D "$pg/data" -A trust -U rigcheck -E UTF8 --locale=C --no-sync >"$pg/initdb.log" 2>&1 ||
    { echo "initdb: $(tail -5 "$pg/initdb.log")" >&2; return 1; }
  "${pg_as[@]}" "$pg_bin/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w -t 60 \
    -o "-k $pg -c listen_addresses= $*" start >/dev/null || { echo "pg_ctl start: $(tail -5 "$pg/server.log")" >&2; return 1; }
  pg_version=$("$pg_bin/postgres" --version | awk '{print $3}')
}
pg_stop() {
  [[ -z $pg ]] || "${pg_as[@]}" "$pg_bin/pg_ctl" -D "$pg/data" -m immediate stop >/dev/null 2>&1 || true
  [[ -z $pg ]] || rm -rf "$pg"
  pg=""
}
