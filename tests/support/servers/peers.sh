# shellcheck shell=bash
# The HTTP/2 and HTTP/3 peers of the integration tests: nghttpd (TLS and h2c), caddy
# (h1 + h2 over TLS and h3 over UDP, one port number) and gtlsserver (ngtcp2's
# example server: h3 over UDP only). Source it after lib.sh;
# it defines functions only. Each keeps its pid, argv and log in the state
# directory (lib.sh's daemon_* functions) and needs STATE/certs (make_certs).

# start_nghttpd STATE FILES NAME TLS: starts nghttpd on a new free port serving FILES
# and sets NGHTTPD_PORT. TLS=tls: HTTP/2 over TLS (ALPN h2) with STATE/certs on every
# address of "localhost"; TLS=h2c: HTTP/2 with prior knowledge on 127.0.0.1.
# --echo-upload: a POST or PUT body comes back as the response body.
start_nghttpd() {
  local state=$1 files=$2 name=$3 tls=$4 attempt
  local log=$state/$name.log
  daemon_stop "$state" "$name"
  for attempt in 1 2 3; do
    take_free_port NGHTTPD_PORT
    if [ "$tls" = tls ]; then
      daemon_start "$state" "$name" "$log" nghttpd -a localhost --echo-upload \
        -d "$files" "$NGHTTPD_PORT" "$state/certs/server.key" "$state/certs/server.pem"
    else
      daemon_start "$state" "$name" "$log" nghttpd -a 127.0.0.1 --no-tls --echo-upload \
        -d "$files" "$NGHTTPD_PORT"
    fi
    daemon_wait_accepting "$state" "$name" "$NGHTTPD_PORT" && return 0
    echo "servers: $name failed to start on port $NGHTTPD_PORT (attempt $attempt); last lines of $log:" >&2
    tail -n 5 "$log" >&2 || true
    daemon_stop "$state" "$name"
  done
  servers_die "$name (nghttpd) would not start; log $log"
}

# write_caddyfile STATE FILES PORT UPLOAD_PORT MTLS_PORT: STATE/Caddyfile from the
# template; /upload/* is proxied to 127.0.0.1:UPLOAD_PORT (nginx's plain HTTP port);
# the mutual-TLS site listens on MTLS_PORT.
write_caddyfile() {
  local state=$1 files=$2 port=$3 upload_port=$4 mtls_port=$5 bind=127.0.0.1
  if ipv6_loopback; then
    bind="127.0.0.1 [::1]"
  fi
  sed -e "s|@STATE@|$state|g" -e "s|@FILES@|$files|g" -e "s|@PORT@|$port|g" \
      -e "s|@UPLOAD_PORT@|$upload_port|g" -e "s|@MTLS_PORT@|$mtls_port|g" \
      -e "s|@BIND@|$bind|g" "$SLUICE_SERVERS_DIR/Caddyfile.in" > "$state/Caddyfile"
}

# caddy_serves_h3 STATE PORT: succeeds when caddy's log says it enabled its HTTP/3
# listener on PORT and a UDP socket is bound to 127.0.0.1:PORT.
caddy_serves_h3() {
  local state=$1 port=$2 hex_port
  grep -F '"enabling HTTP/3 listener"' "$state/caddy.log" 2>/dev/null \
    | grep -qF "\"127.0.0.1:$port\"" || return 1
  hex_port=$(printf '%04X' "$port")
  grep -q "^ *[0-9]*: 0100007F:$hex_port " /proc/net/udp
}

# start_caddy STATE FILES UPLOAD_PORT: starts caddy on a new free port serving FILES
# over TLS with STATE/certs, TCP (h1, h2) and UDP (h3), and sets CADDY_PORT; uploads
# (/upload/*) go to nginx on 127.0.0.1:UPLOAD_PORT. Its mutual-TLS site gets a port
# of its own, CADDY_MTLS_PORT. HOME and XDG directories point
# into STATE/caddy so that caddy writes nothing outside it.
start_caddy() {
  local state=$1 files=$2 upload_port=$3 attempt
  local log=$state/caddy.log
  daemon_stop "$state" caddy
  mkdir -p "$state/caddy/home" "$state/caddy/data" "$state/caddy/config"
  for attempt in 1 2 3; do
    take_free_port CADDY_PORT
    take_free_port CADDY_MTLS_PORT
    write_caddyfile "$state" "$files" "$CADDY_PORT" "$upload_port" "$CADDY_MTLS_PORT"
    : > "$log"
    HOME=$state/caddy/home XDG_DATA_HOME=$state/caddy/data \
      XDG_CONFIG_HOME=$state/caddy/config \
      daemon_start "$state" caddy "$log" caddy run --config "$state/Caddyfile" --adapter caddyfile
    if daemon_wait_accepting "$state" caddy "$CADDY_PORT"; then
      for _ in $(seq 50); do
        caddy_serves_h3 "$state" "$CADDY_PORT" && caddy_serves_h3 "$state" "$CADDY_MTLS_PORT" \
          && return 0
        sleep 0.1
      done
      daemon_stop "$state" caddy
      servers_die "caddy accepts TCP on $CADDY_PORT but does not serve HTTP/3 on UDP $CADDY_PORT; see $log"
    fi
    echo "servers: caddy failed to start on port $CADDY_PORT (attempt $attempt); last lines of $log:" >&2
    tail -n 5 "$log" >&2 || true
    daemon_stop "$state" caddy
  done
  servers_die "caddy would not start; config $state/Caddyfile, log $state/caddy.log"
}

# gtlsserver_launch STATE FILES NAME ADDR PORT: one gtlsserver on UDP ADDR:PORT; fails
# when it does not bind within 10 s (then it is stopped). -q: without it the server
# dumps every frame to its log.
gtlsserver_launch() {
  local state=$1 files=$2 name=$3 addr=$4 port=$5
  : > "$state/$name.log"
  daemon_start "$state" "$name" "$state/$name.log" gtlsserver -q -d "$files" \
    "$addr" "$port" "$state/certs/server.key" "$state/certs/server.pem"
  daemon_wait_udp "$state" "$name" "$addr" "$port" && return 0
  echo "servers: $name failed to bind UDP $addr:$port; last lines of $state/$name.log:" >&2
  tail -n 5 "$state/$name.log" >&2 || true
  daemon_stop "$state" "$name"
  return 1
}

# start_gtlsserver STATE FILES: starts gtlsserver (HTTP/3 only, no TCP) on a new free
# UDP port of 127.0.0.1 serving FILES with STATE/certs, and sets GTLSSERVER_PORT.
# Where ::1 exists a second instance (gtlsserver6) serves the same port there, since
# "localhost" may resolve to it, as caddy listens on both.
start_gtlsserver() {
  local state=$1 files=$2 attempt
  stop_gtlsserver "$state"
  for attempt in 1 2 3; do
    take_free_port GTLSSERVER_PORT
    if gtlsserver_launch "$state" "$files" gtlsserver 127.0.0.1 "$GTLSSERVER_PORT"; then
      if ! ipv6_loopback \
          || gtlsserver_launch "$state" "$files" gtlsserver6 ::1 "$GTLSSERVER_PORT"; then
        return 0
      fi
    fi
    echo "servers: gtlsserver failed to start on UDP port $GTLSSERVER_PORT (attempt $attempt)" >&2
    stop_gtlsserver "$state"
  done
  servers_die "gtlsserver would not start; logs $state/gtlsserver.log and $state/gtlsserver6.log"
}

stop_gtlsserver() {
  daemon_stop "$1" gtlsserver
  daemon_stop "$1" gtlsserver6
}

# stop_peers STATE: stops nghttpd, caddy and gtlsserver of STATE, whichever run.
stop_peers() {
  local state=$1
  daemon_stop "$state" nghttpd-tls
  daemon_stop "$state" nghttpd-h2c
  daemon_stop "$state" caddy
  stop_gtlsserver "$state"
}
