#!/usr/bin/env bash
# Installs PostgreSQL from Debian's packages when missing, starts a cluster on loopback and creates
# the test role and database. Prints `TEST_DATABASE_URL=<url>` as its last line.
set -euo pipefail

port="${COLONY_PG_PORT:-5432}"
user=colony
pass=colony
db=colony_test

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  echo "ensure-postgres: installing postgresql from Debian's packages" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi
version="$(ls /usr/lib/postgresql | sort -V | tail -n1)"

if ! pg_lsclusters -h 2>/dev/null | awk '{print $1" "$2}' | grep -qx "$version main"; then
  as_root pg_createcluster "$version" main -p "$port" >&2
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $4}' | grep -qx online; then
  as_root pg_ctlcluster "$version" main start >&2
fi
cluster_port="$(pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $3}')"

psql_admin() { as_root runuser -u postgres -- psql -v ON_ERROR_STOP=1 -qAt -p "$cluster_port" "$@"; }
for _ in $(seq 1 30); do psql_admin -c 'select 1' >/dev/null 2>&1 && break; sleep 1; done
if [ "$(psql_admin -c "select 1 from pg_roles where rolname='$user'")" != 1 ]; then
  psql_admin -c "create role $user login password '$pass' createdb createrole" >&2
fi
# The integrations' database layer creates a role per enabled agent: the test role needs CREATEROLE.
if [ "$(psql_admin -c "select rolcreaterole from pg_roles where rolname='$user'")" != t ]; then
  psql_admin -c "alter role $user createrole" >&2
fi
if [ "$(psql_admin -c "select 1 from pg_database where datname='$db'")" != 1 ]; then
  psql_admin -c "create database $db owner $user" >&2
fi
echo "TEST_DATABASE_URL=postgres://$user:$pass@127.0.0.1:$cluster_port/$db"
