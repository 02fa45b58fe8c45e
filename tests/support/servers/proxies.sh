# shellcheck shell=bash
# The proxies of the integration tests: squid (an HTTP proxy on two ports, one open and
# one with Basic proxy authentication), stunnel in front of squid's open port (an HTTPS
# proxy: TLS to the proxy, with the servers' certificate for localhost) and microsocks
# (SOCKS5). Source it after
# lib.sh; it defines functions only. Each keeps its pid, argv and logs in the state
# directory (lib.sh's daemon_* functions) and forwards only to loopback servers.

# The proxy credentials the tests use; start.sh writes them to the env file.
SLUICE_SQUID_AUTH_USER=sluice
SLUICE_SQUID_AUTH_PASSWORD=proxy-secret
# The user squid switches to when started as root (Debian's squid package makes it).
SLUICE_SQUID_USER=proxy

# squid_program: prints the path of squid. It lives in /usr/sbin, which is not in the
# PATH of an ordinary user on Debian.
squid_program() {
  command -v squid 2>/dev/null || { [ -x /usr/sbin/squid ] && echo /usr/sbin/squid; }
}

# squid_dir STATE: the directory of squid's logs, core files and password file.
squid_dir() {
  cat "$1/squid.dir"
}

# squid_prepare_dir STATE: a fresh squid directory (see squid_dir), writable by the
# user squid runs as. As root, squid drops to SLUICE_SQUID_USER (it refuses to run as
# root) before it opens its logs and starts its auth helper, so the directory lives
# under /tmp, where every user can reach it: the state directory's parents may be
# closed to others (a build tree under /root, or in a mktemp -d as CI's clone is).
squid_prepare_dir() {
  local state=$1 dir
  squid_remove_dir "$state"
  dir=$(mktemp -d /tmp/sluice-squid.XXXXXX) || servers_die "cannot make a squid directory in /tmp"
  chmod 755 "$dir"
  echo "$dir" > "$state/squid.dir"
  printf '%s:%s\n' "$SLUICE_SQUID_AUTH_USER" \
    "$(openssl passwd -apr1 "$SLUICE_SQUID_AUTH_PASSWORD")" > "$dir/passwd" \
    || servers_die "openssl could not hash the squid proxy password into $dir/passwd"
  [ "$(id -u)" = 0 ] || return 0
  id -u "$SLUICE_SQUID_USER" >/dev/null 2>&1 \
    || servers_die "user $SLUICE_SQUID_USER missing: reinstall squid (./dev deps)"
  chown -R "$SLUICE_SQUID_USER:$SLUICE_SQUID_USER" "$dir"
  # A parent directory closed to others (a build tree under /root, a mktemp -d)
  # stops squid after the switch, with an error only in its own log.
  setpriv --reuid="$SLUICE_SQUID_USER" --regid="$SLUICE_SQUID_USER" --clear-groups \
      test -w "$dir" 2>/dev/null \
    || servers_die "squid runs as user $SLUICE_SQUID_USER under root and cannot write $dir"
}

# squid_remove_dir STATE: removes the squid directory of STATE, if it has one.
squid_remove_dir() {
  local dir
  dir=$(squid_dir "$1" 2>/dev/null) || return 0
  case $dir in /tmp/sluice-squid.*) rm -rf "$dir" ;; esac
  rm -f "$1/squid.dir"
}

# write_squid_conf STATE OPEN_PORT AUTH_PORT: STATE/squid.conf from the template.
write_squid_conf() {
  local state=$1 open_port=$2 auth_port=$3 user_line="" ncsa_auth=/usr/lib/squid/basic_ncsa_auth
  [ -x "$ncsa_auth" ] || servers_die "$ncsa_auth not found: run ./dev deps (installs squid)"
  if [ "$(id -u)" = 0 ]; then
    user_line="cache_effective_user $SLUICE_SQUID_USER"
  fi
  sed -e "s|@DIR@|$(squid_dir "$state")|g" -e "s|@OPEN_PORT@|$open_port|g" \
      -e "s|@AUTH_PORT@|$auth_port|g" -e "s|@NCSA_AUTH@|$ncsa_auth|g" \
      -e "s|@USER_LINE@|$user_line|g" \
      "$SLUICE_SERVERS_DIR/squid.conf.in" > "$state/squid.conf"
}

# squid_wait_listening STATE OPEN_PORT AUTH_PORT: waits up to 10 s until squid listens
# on both ports. Fails early when it exits or logs that it could not bind a port: it
# keeps running without that port, so waiting out the 10 s would only slow a retry.
squid_wait_listening() {
  local state=$1 open_port=$2 auth_port=$3 pid
  pid=$(cat "$state/squid.pid")
  for _ in $(seq 100); do
    if tcp_listened_by "$pid" "$open_port" && tcp_listened_by "$pid" "$auth_port"; then
      daemon_running "$state" squid
      return
    fi
    pid_alive "$pid" || return 1
    ! grep -qF 'Cannot bind' "$(squid_dir "$state")/cache.log" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# start_squid STATE: starts squid in the foreground (-N: one process, no daemon) on two
# new free ports and sets SQUID_PORT (open) and SQUID_AUTH_PORT (Basic proxy
# authentication). Its logs are cache.log and access.log in squid_dir STATE;
# STATE/squid.log has what it printed before it opened cache.log.
start_squid() {
  local state=$1 attempt program cache_log
  local log=$state/squid.log
  program=$(squid_program) || servers_die "squid not found: run ./dev deps (installs squid)"
  daemon_stop "$state" squid
  for attempt in 1 2 3; do
    take_free_port SQUID_PORT
    take_free_port SQUID_AUTH_PORT
    squid_prepare_dir "$state"
    cache_log=$(squid_dir "$state")/cache.log
    write_squid_conf "$state" "$SQUID_PORT" "$SQUID_AUTH_PORT"
    : > "$log"
    daemon_start "$state" squid "$log" "$program" -N -f "$state/squid.conf"
    squid_wait_listening "$state" "$SQUID_PORT" "$SQUID_AUTH_PORT" && return 0
    echo "servers: squid failed to listen on ports $SQUID_PORT and $SQUID_AUTH_PORT" \
      "(attempt $attempt); its complaints in $cache_log and $log:" >&2
    # cache.log is long and chatty: its ERROR/FATAL lines say what went wrong. A
    # config error stops squid before cache.log is opened, on stderr (squid.log).
    grep -hE 'ERROR|FATAL|Cannot' "$cache_log" 2>/dev/null | tail -n 5 >&2 || true
    tail -n 5 "$log" >&2 || true
    daemon_stop "$state" squid
  done
  servers_die "squid would not start; config $state/squid.conf, logs $cache_log and $log"
}

# start_microsocks STATE: starts microsocks (SOCKS5, no authentication) on a new free
# port of 127.0.0.1 and sets MICROSOCKS_PORT. It exits when the port is taken.
start_microsocks() {
  local state=$1 attempt log=$1/microsocks.log
  command -v microsocks >/dev/null \
    || servers_die "microsocks not found: run ./dev deps (installs microsocks)"
  daemon_stop "$state" microsocks
  for attempt in 1 2 3; do
    take_free_port MICROSOCKS_PORT
    : > "$log"
    daemon_start "$state" microsocks "$log" microsocks -i 127.0.0.1 -p "$MICROSOCKS_PORT"
    daemon_wait_listening "$state" microsocks "$MICROSOCKS_PORT" && return 0
    echo "servers: microsocks failed to listen on port $MICROSOCKS_PORT (attempt $attempt);" \
      "last lines of $log:" >&2
    tail -n 5 "$log" >&2 || true
    daemon_stop "$state" microsocks
  done
  servers_die "microsocks would not start; log $log"
}

# start_stunnel STATE SQUID_PORT: starts stunnel on a new free port of 127.0.0.1,
# taking TLS (STATE/certs/server.pem, a certificate for localhost) and passing the
# bytes inside to squid's SQUID_PORT: an HTTPS proxy. Sets STUNNEL_PORT.
start_stunnel() {
  local state=$1 squid_port=$2 attempt log=$1/stunnel.log
  command -v stunnel4 >/dev/null || servers_die "stunnel4 not found: run ./dev deps (installs stunnel4)"
  daemon_stop "$state" stunnel
  for attempt in 1 2 3; do
    take_free_port STUNNEL_PORT
    cat > "$state/stunnel.conf" <<CONF
foreground = yes
pid =
debug = warning
[https-proxy]
accept = 127.0.0.1:$STUNNEL_PORT
connect = 127.0.0.1:$squid_port
cert = $state/certs/server.pem
key = $state/certs/server.key
CONF
    : > "$log"
    daemon_start "$state" stunnel "$log" stunnel4 "$state/stunnel.conf"
    daemon_wait_listening "$state" stunnel "$STUNNEL_PORT" && return 0
    echo "servers: stunnel failed to listen on port $STUNNEL_PORT (attempt $attempt);" \
      "last lines of $log:" >&2
    tail -n 5 "$log" >&2 || true
    daemon_stop "$state" stunnel
  done
  servers_die "stunnel would not start; log $log"
}

# stop_proxies STATE: stops squid, stunnel and microsocks of STATE, whichever run.
stop_proxies() {
  daemon_stop "$1" stunnel
  daemon_stop "$1" squid
  squid_remove_dir "$1"
  daemon_stop "$1" microsocks
}
