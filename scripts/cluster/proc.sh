# shellcheck shell=bash disable=SC2034
# Process helpers shared by up.sh and down.sh (sourced after lib.sh).

MARKER=.colony-cluster # proves a state dir was made by up.sh, so down.sh may delete it

# Starts <name> (<command...>) detached in its own session, logging to logs/<name>.log; records
# the pid and the executable so we never signal an unrelated process that reused the pid.
start_component() {
  local name="$1"
  shift
  # fd 8 is up.sh's lock on the state dir: the daemons must not inherit (and so hold) it.
  setsid "$@" </dev/null >>"$CLUSTER_DIR/logs/$name.log" 2>&1 8>&- &
  local pid=$!
  # The command line, so restart.sh can start the same process again.
  printf '%s\0' "$@" >"$CLUSTER_DIR/pids/$name.argv"
  echo "$pid" >"$CLUSTER_DIR/pids/$name.pid"
  echo "$1" >"$CLUSTER_DIR/pids/$name.exe"
  # Until the forked shell has exec'd, /proc shows bash rather than the daemon, and a health wait
  # that looked now would take a starting component for a dead one. Wait for the exec (or exit).
  local i
  for i in $(seq 1 100); do
    component_pid "$name" >/dev/null && return 0
    [ -d "/proc/$pid" ] || return 0
    sleep 0.05
  done
}

# Prints the pid of <name> if that process is alive and still runs the recorded executable.
component_pid() {
  local name="$1" pid exe argv0
  [ -f "$CLUSTER_DIR/pids/$name.pid" ] || return 1
  pid="$(cat "$CLUSTER_DIR/pids/$name.pid")"
  exe="$(cat "$CLUSTER_DIR/pids/$name.exe" 2>/dev/null || true)"
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  argv0="$(tr '\0' '\n' <"/proc/$pid/cmdline" | head -n1)"
  [ -n "$argv0" ] && [ "$argv0" = "$exe" ] || return 1
  # a zombie (exited, not yet reaped) is not running
  [ "$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null)" != Z ] || return 1
  echo "$pid"
}

# The processes of this cluster, in start order: the real node's only where up.sh started one.
components() {
  printf '%s\n' "${CLUSTER_COMPONENTS[@]}"
  if [ -f "$CLUSTER_DIR/real-node" ]; then printf '%s\n' "${NODE_COMPONENTS[@]}"; fi
}

all_running() {
  local c
  for c in $(components); do component_pid "$c" >/dev/null || return 1; done
}

# /readyz of our apiserver, authenticated with the admin client certificate.
apiserver_ready() {
  local port
  port="$(sed -n 's/^APISERVER_PORT=//p' "$CLUSTER_DIR/ports.env" 2>/dev/null)"
  [ -n "$port" ] || return 1
  [ "$(curl -sS --max-time 3 --cacert "$CLUSTER_DIR/pki/ca.crt" --cert "$CLUSTER_DIR/pki/admin.crt" \
    --key "$CLUSTER_DIR/pki/admin.key" "https://127.0.0.1:$port/readyz" 2>/dev/null)" = ok ]
}

# wait_until <description> <component whose death aborts the wait> <timeout s> <command...>
wait_until() {
  local what="$1" comp="$2" timeout="$3" start=$SECONDS
  shift 3
  until "$@" >/dev/null 2>&1; do
    if ! component_pid "$comp" >/dev/null; then
      log "$comp exited; last lines of $CLUSTER_DIR/logs/$comp.log:"
      tail -n 30 "$CLUSTER_DIR/logs/$comp.log" >&2 || true
      die "$comp failed to start"
    fi
    if ((SECONDS - start >= timeout)); then
      log "timed out after ${timeout}s waiting for: $what; last lines of $CLUSTER_DIR/logs/$comp.log:"
      tail -n 30 "$CLUSTER_DIR/logs/$comp.log" >&2 || true
      die "timed out waiting for $what"
    fi
    sleep 0.5
  done
  log "ok: $what ($((SECONDS - start))s)"
}

# Stops every recorded component, newest first: SIGTERM, then SIGKILL after a grace period.
stop_all() {
  local i c pid pids=() deadline all
  mapfile -t all < <(components)
  for ((i = ${#all[@]} - 1; i >= 0; i--)); do
    c="${all[$i]}"
    if pid="$(component_pid "$c")"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid:$c")
    fi
    rm -f "$CLUSTER_DIR/pids/$c.pid"
  done
  [ "${#pids[@]}" -gt 0 ] || return 0
  deadline=$((SECONDS + ${COLONY_STOP_GRACE:-15}))
  for c in "${pids[@]}"; do
    pid="${c%%:*}"
    while [ -d "/proc/$pid" ] && [ "$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null)" != Z ] &&
      ((SECONDS < deadline)); do
      sleep 0.2
    done
    if [ -d "/proc/$pid" ] && [ "$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null)" != Z ]; then
      log "${c#*:} (pid $pid) did not stop in time; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    log "stopped ${c#*:} (pid $pid)"
  done
}
