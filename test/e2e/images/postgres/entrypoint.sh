#!/bin/sh
# e2e-postgres serve: initialises $PGDATA on first start (user $POSTGRES_USER, password
# $POSTGRES_PASSWORD, database $POSTGRES_DB), then runs postgres listening on every address.
# e2e-postgres ready: exits 0 once the server accepts connections (the readiness probe).
set -eu
# The one server version Debian's postgresql package installed.
for bin in /usr/lib/postgresql/*/bin; do :; done
user="${POSTGRES_USER:-colony}"
database="${POSTGRES_DB:-colony}"

case "${1:-serve}" in
  ready)
    exec "$bin/pg_isready" -q -h 127.0.0.1 -p 5432 -U "$user" -d "$database"
    ;;
  serve) ;;
  *)
    echo "usage: e2e-postgres serve|ready" >&2
    exit 64
    ;;
esac

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "e2e-postgres: POSTGRES_PASSWORD is not set" >&2; exit 78; }
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  "$bin/initdb" -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 --no-instructions >&2
  rm -f "$pwfile"
  echo 'host all all 0.0.0.0/0 scram-sha-256' >>"$PGDATA/pg_hba.conf"
  echo "CREATE DATABASE \"$database\"" | "$bin/postgres" --single -D "$PGDATA" postgres >/dev/null
fi
# The socket goes to /tmp: /run/postgresql belongs to the package's install, not to this container.
exec "$bin/postgres" -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/tmp
