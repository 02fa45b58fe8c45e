# shellcheck shell=bash
# Shell functions shared by start.sh, stop.sh, peers.sh and `./dev demo`:
# certificates, free loopback ports, background servers with pid files, and one nginx
# instance per state directory. Source it; it defines functions only. Every file an
# instance uses lives in its state directory, so two instances (a test run and a
# demo) never share anything.

SLUICE_SERVERS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

servers_die() {
  echo "servers: $*" >&2
  exit 1
}

# make_ca DIR NAME CN: a self-signed P-256 CA, DIR/NAME.pem and DIR/NAME.key.
make_ca() {
  local dir=$1 name=$2 cn=$3
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
    -subj "/CN=$cn" -keyout "$dir/$name.key" -out "$dir/$name.pem" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null \
    || servers_die "openssl could not create the CA $name in $dir"
}

# make_leaf DIR NAME CA CN: a P-256 key (DIR/NAME.key) and a certificate for CN
# (DIR/NAME.pem) that DIR/CA.pem signs with the extensions in DIR/NAME.ext.
make_leaf() {
  local dir=$1 name=$2 ca=$3 cn=$4
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -subj "/CN=$cn" -keyout "$dir/$name.key" -out "$dir/$name.csr" 2>/dev/null \
    || servers_die "openssl could not create the $name key in $dir"
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/$ca.pem" -CAkey "$dir/$ca.key" \
    -CAcreateserial -days 30 -extfile "$dir/$name.ext" -out "$dir/$name.pem" 2>/dev/null \
    || servers_die "openssl could not sign the $name certificate in $dir"
  rm -f "$dir/$name.csr" "$dir/$ca.srl"
}

# make_certs DIR: a CA (ca.pem, ca.key) and a localhost certificate it signs
# (server.pem, server.key) for DNS:localhost, IP:127.0.0.1 and IP:::1; then the
# client side (make_client_certs).
make_certs() {
  local dir=$1
  mkdir -p "$dir"
  make_ca "$dir" ca "sluice test CA"
  cat > "$dir/server.ext" <<EXT
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
EXT
  make_leaf "$dir" server ca localhost
  make_client_certs "$dir"
}

# make_client_certs DIR: for mutual TLS and the other TLS options' tests, beside the
# server's: a client CA (client-ca.pem) that nginx's mTLS server trusts; a client
# certificate it signs (client.pem, key client.key; client-combined.pem holds both;
# client-encrypted.key is the key under the passphrase in client-key-passphrase); a
# CA directory for --capath (capath/, the server CA under its subject hash); and the
# server's public key (server-pubkey.pem) and its pin (server-pubkey.pin,
# sha256//BASE64) for --pinnedpubkey.
make_client_certs() {
  local dir=$1
  make_ca "$dir" client-ca "sluice test client CA"
  cat > "$dir/client.ext" <<EXT
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
EXT
  make_leaf "$dir" client client-ca "sluice test client"
  cat "$dir/client.pem" "$dir/client.key" > "$dir/client-combined.pem"
  echo "sluice-client-passphrase" > "$dir/client-key-passphrase"
  openssl pkey -in "$dir/client.key" -aes256 -passout "file:$dir/client-key-passphrase" \
    -out "$dir/client-encrypted.key" 2>/dev/null \
    || servers_die "openssl could not encrypt the client key in $dir"
  rm -rf "$dir/capath"
  mkdir -p "$dir/capath"
  cp "$dir/ca.pem" "$dir/capath/sluice-test-ca.pem"
  openssl rehash "$dir/capath" 2>/dev/null \
    || servers_die "openssl rehash failed for $dir/capath"
  openssl x509 -in "$dir/server.pem" -pubkey -noout > "$dir/server-pubkey.pem" \
    || servers_die "openssl could not extract the server's public key in $dir"
  printf 'sha256//%s\n' "$(openssl pkey -pubin -in "$dir/server-pubkey.pem" -outform der \
    | openssl dgst -sha256 -binary | base64)" > "$dir/server-pubkey.pin"
}

# ipv6_loopback: succeeds when ::1 can be bound here (containers may lack it). The
# answer is kept in SLUICE_IPV6_LOOPBACK: a python start costs a second or more on a
# busy sandbox, and every server asks.
ipv6_loopback() {
  if [ -z "${SLUICE_IPV6_LOOPBACK:-}" ]; then
    if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
      SLUICE_IPV6_LOOPBACK=yes
    else
      SLUICE_IPV6_LOOPBACK=no
    fi
  fi
  [ "$SLUICE_IPV6_LOOPBACK" = yes ]
}

# free_ports N: prints N distinct ports free on 127.0.0.1 for both TCP and UDP (and
# on ::1 when it exists, since "localhost" may resolve there). UDP too because caddy
# serves HTTP/3 on the UDP port of the same number. A port can still be taken before
# a server binds it; the start functions retry with new ports when that happens.
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
want, found, held = int(sys.argv[1]), [], []
families = [(socket.AF_INET, "127.0.0.1")]
try:
    socket.socket(socket.AF_INET6).bind(("::1", 0))
    families.append((socket.AF_INET6, "::1"))
except OSError:
    pass  # no IPv6 loopback here
while len(found) < want:
    first = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    first.bind(("127.0.0.1", 0))
    port = first.getsockname()[1]
    held.append(first)
    try:
        for family, host in families:
            for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                if (family, kind) == (socket.AF_INET, socket.SOCK_STREAM):
                    continue
                s = socket.socket(family, kind)
                held.append(s)
                s.bind((host, port))
    except OSError:
        continue  # taken for one of them: try another
    found.append(port)
print(" ".join(map(str, found)))
PY
}

# take_free_port VAR: sets VAR to a port from free_ports, which is asked for twelve at
# a time (SLUICE_PORT_POOL holds the rest) so that starting every server and proxy
# costs one python run, not one per server. Call it in the current shell, not in
# $(...), or the pool is lost with the subshell.
take_free_port() {
  local -n taken=$1
  if [ -z "${SLUICE_PORT_POOL:-}" ]; then
    SLUICE_PORT_POOL=$(free_ports 12)
  fi
  # shellcheck disable=SC2034 # taken is the caller's variable, through the nameref
  read -r taken SLUICE_PORT_POOL <<< "$SLUICE_PORT_POOL"
}

# port_open PORT: succeeds when 127.0.0.1:PORT accepts a connection.
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# pid_alive PID: succeeds when PID runs. A zombie does not count: a daemon's exited
# process waits to be reaped by init, and `kill -0` succeeds on it meanwhile.
pid_alive() {
  local proc_state
  proc_state=$(sed -e 's/^.*) //' -e 's/ .*//' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$proc_state" ] && [ "$proc_state" != Z ]
}

# ---- background servers without a pid file of their own (nghttpd, caddy, gtlsserver)
# Each runs in its own session with stdin from /dev/null and output to a log, so ctest
# (which waits for its fixture's pipes to close) and a terminal's Ctrl-C leave it
# alone until stop.sh. STATE/NAME.pid holds its pid and STATE/NAME.cmdline its exact
# argv, which daemon_stop checks so that a reused pid is never signalled.

# daemon_start STATE NAME LOG PROGRAM ARGS...: starts PROGRAM in the background with
# the caller's environment and writes STATE/NAME.pid and STATE/NAME.cmdline.
daemon_start() {
  local state=$1 name=$2 log=$3
  shift 3
  command -v "$1" >/dev/null || servers_die "$1 not found: run ./dev deps"
  printf '%s\0' "$@" > "$state/$name.cmdline"
  # Without job control the background child is no process group leader, so
  # setsid(1) calls setsid() itself and execs PROGRAM without forking: $! is the
  # pid PROGRAM will have.
  (
    set +m
    setsid "$@" < /dev/null >> "$log" 2>&1 &
    echo $! > "$state/$name.pid"
  )
}

# daemon_running STATE NAME: succeeds when the process of STATE/NAME.pid runs with
# the argv that daemon_start recorded.
daemon_running() {
  local state=$1 name=$2 pid
  [ -f "$state/$name.pid" ] && [ -f "$state/$name.cmdline" ] || return 1
  pid=$(cat "$state/$name.pid")
  [ -n "$pid" ] && pid_alive "$pid" || return 1
  # Not cmp -s: it trusts st_size, which is 0 for files under /proc.
  [ "$(tr '\0' '\n' < "/proc/$pid/cmdline" 2>/dev/null)" \
    = "$(tr '\0' '\n' < "$state/$name.cmdline")" ]
}

# daemon_stop STATE NAME: SIGTERM, then SIGKILL after 10 s, for the process of
# STATE/NAME.pid if it is still the one daemon_start started; removes its files.
daemon_stop() {
  local state=$1 name=$2 pid
  if daemon_running "$state" "$name"; then
    pid=$(cat "$state/$name.pid")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
      pid_alive "$pid" || break
      sleep 0.1
    done
    if pid_alive "$pid"; then
      echo "servers: $name ($pid) ignored SIGTERM for 10 s; sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$state/$name.pid" "$state/$name.cmdline"
}

# daemon_wait_accepting STATE NAME PORT: waits up to 10 s until 127.0.0.1:PORT
# accepts and the process is PROGRAM. Fails early when the process exits (a port
# taken meanwhile, a bad option).
daemon_wait_accepting() {
  local state=$1 name=$2 port=$3 pid
  pid=$(cat "$state/$name.pid")
  for _ in $(seq 100); do
    if port_open "$port"; then
      daemon_running "$state" "$name"
      return
    fi
    pid_alive "$pid" || return 1
    sleep 0.1
  done
  return 1
}

# udp_bound_by PID ADDR PORT: succeeds when process PID holds a UDP socket bound to
# ADDR (127.0.0.1 or ::1) and PORT. A UDP server accepts no connection to probe, and
# a socket of another process on that port must not count: the socket's inode from
# /proc/net/udp{,6} has to be one of PID's open files.
udp_bound_by() {
  local pid=$1 addr=$2 port=$3 table hex_addr hex_port inode
  case $addr in
    127.0.0.1) table=/proc/net/udp hex_addr=0100007F ;;
    ::1) table=/proc/net/udp6 hex_addr=00000000000000000000000001000000 ;;
    *) servers_die "udp_bound_by: unsupported address $addr" ;;
  esac
  hex_port=$(printf '%04X' "$port")
  while read -r inode; do
    if find "/proc/$pid/fd" -maxdepth 1 -lname "socket:\[$inode\]" 2>/dev/null | grep -q .; then
      return 0
    fi
  done < <(awk -v local="$hex_addr:$hex_port" '$2 == local { print $10 }' "$table" 2>/dev/null)
  return 1
}

# tcp_listened_by PID PORT: succeeds when process PID holds a TCP socket listening on
# 127.0.0.1:PORT. Stricter than port_open: squid that cannot bind one of its ports
# logs it and keeps running, and the port then accepts for whoever holds it.
tcp_listened_by() {
  local pid=$1 port=$2 hex_port inode
  hex_port=$(printf '%04X' "$port")
  # State 0A is LISTEN.
  while read -r inode; do
    if find "/proc/$pid/fd" -maxdepth 1 -lname "socket:\[$inode\]" 2>/dev/null | grep -q .; then
      return 0
    fi
  done < <(awk -v local="0100007F:$hex_port" '$2 == local && $4 == "0A" { print $10 }' \
    /proc/net/tcp 2>/dev/null)
  return 1
}

# daemon_wait_listening STATE NAME PORT: waits up to 10 s until the process of
# STATE/NAME.pid listens on 127.0.0.1:PORT. Fails early when the process exits (a
# port taken meanwhile, a bad option).
daemon_wait_listening() {
  local state=$1 name=$2 port=$3 pid
  pid=$(cat "$state/$name.pid")
  for _ in $(seq 100); do
    if tcp_listened_by "$pid" "$port"; then
      daemon_running "$state" "$name"
      return
    fi
    pid_alive "$pid" || return 1
    sleep 0.1
  done
  return 1
}

# daemon_wait_udp STATE NAME ADDR PORT: waits up to 10 s until the process of
# STATE/NAME.pid has bound UDP ADDR:PORT. Fails early when the process exits (a port
# taken meanwhile, a bad option).
daemon_wait_udp() {
  local state=$1 name=$2 addr=$3 port=$4 pid
  pid=$(cat "$state/$name.pid")
  for _ in $(seq 100); do
    if udp_bound_by "$pid" "$addr" "$port"; then
      daemon_running "$state" "$name"
      return
    fi
    pid_alive "$pid" || return 1
    sleep 0.1
  done
  return 1
}

# The credentials nginx's /auth/ and /bearer/ locations take (the env file names them).
SLUICE_AUTH_USER=sluice
SLUICE_AUTH_PASSWORD=open-sesame.42
SLUICE_AUTH_TOKEN=sluice-test-token.v1

# write_nginx_conf STATE FILES HTTP_PORT HTTPS_PORT H2_PORT MTLS_PORT ONESHOT_PORT:
# STATE/nginx.conf from the template, serving FILES on the ports with
# STATE/certs/server.{pem,key}: plain HTTP/1.1, TLS HTTP/1.1 only, TLS with HTTP/2,
# mutual TLS (h2 and h1), and one request per TLS connection (h2 and h1).
write_nginx_conf() {
  local state=$1 files=$2 http_port=$3 https_port=$4 h2_port=$5 mtls_port=$6 oneshot_port=$7
  local listen6_http="" listen6_https="" listen6_h2="" listen6_mtls="" listen6_oneshot=""
  local user_line=""
  if ipv6_loopback; then
    listen6_http="listen [::1]:$http_port;"
    listen6_https="listen [::1]:$https_port ssl;"
    listen6_h2="listen [::1]:$h2_port ssl http2;"
    listen6_mtls="listen [::1]:$mtls_port ssl http2;"
    listen6_oneshot="listen [::1]:$oneshot_port ssl http2;"
  fi
  # As root, workers would run as nobody and could not read a private build tree.
  if [ "$(id -u)" = 0 ]; then
    user_line="user root root;"
  fi
  sed -e "s|@STATE@|$state|g" -e "s|@FILES@|$files|g" \
      -e "s|@HTTP_PORT@|$http_port|g" -e "s|@HTTPS_PORT@|$https_port|g" \
      -e "s|@H2_PORT@|$h2_port|g" -e "s|@MTLS_PORT@|$mtls_port|g" \
      -e "s|@ONESHOT_PORT@|$oneshot_port|g" \
      -e "s|@LISTEN6_HTTP@|$listen6_http|g" -e "s|@LISTEN6_HTTPS@|$listen6_https|g" \
      -e "s|@LISTEN6_H2@|$listen6_h2|g" -e "s|@LISTEN6_MTLS@|$listen6_mtls|g" \
      -e "s|@LISTEN6_ONESHOT@|$listen6_oneshot|g" \
      -e "s|@USER_LINE@|$user_line|g" -e "s|@AUTH_TOKEN@|$SLUICE_AUTH_TOKEN|g" \
      "$SLUICE_SERVERS_DIR/nginx.conf.in" > "$state/nginx.conf"
  # Basic authentication's one user (apr1: an MD5-based crypt nginx reads).
  printf '%s:%s\n' "$SLUICE_AUTH_USER" "$(openssl passwd -apr1 "$SLUICE_AUTH_PASSWORD")" \
    > "$state/htpasswd"
}

# stop_nginx STATE: stops the nginx whose pid file is STATE/nginx.pid, if it runs.
# Only that process: it must be an nginx started with STATE/nginx.conf.
stop_nginx() {
  local state=$1 pid_file=$1/nginx.pid pid
  [ -f "$pid_file" ] || return 0
  pid=$(cat "$pid_file")
  if [ -n "$pid" ] && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$state/nginx.conf"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
      pid_alive "$pid" || break
      sleep 0.1
    done
    if pid_alive "$pid"; then
      echo "servers: nginx $pid ignored SIGTERM for 10 s; sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pid_file"
}

# start_nginx STATE FILES: starts nginx (daemon) on five new free ports serving FILES
# and sets NGINX_HTTP_PORT, NGINX_HTTPS_PORT (TLS, HTTP/1.1 only), NGINX_H2_PORT
# (TLS, ALPN h2 and http/1.1), NGINX_MTLS_PORT (mutual TLS) and NGINX_ONESHOT_PORT
# (one request per connection). Needs STATE/certs (make_certs).
start_nginx() {
  local state=$1 files=$2 attempt
  mkdir -p "$state/tmp"
  stop_nginx "$state"
  # A socket file left by an nginx that did not exit cleanly would make bind fail.
  rm -f "$state/nginx.sock" "$state/nginx-h2c.sock"
  for attempt in 1 2 3; do
    take_free_port NGINX_HTTP_PORT
    take_free_port NGINX_HTTPS_PORT
    take_free_port NGINX_H2_PORT
    take_free_port NGINX_MTLS_PORT
    take_free_port NGINX_ONESHOT_PORT
    write_nginx_conf "$state" "$files" "$NGINX_HTTP_PORT" "$NGINX_HTTPS_PORT" "$NGINX_H2_PORT" \
      "$NGINX_MTLS_PORT" "$NGINX_ONESHOT_PORT"
    if nginx -e "$state/error.log" -p "$state" -c "$state/nginx.conf"; then
      for _ in $(seq 100); do
        if port_open "$NGINX_HTTP_PORT" && port_open "$NGINX_HTTPS_PORT" \
            && port_open "$NGINX_H2_PORT" && port_open "$NGINX_MTLS_PORT" \
            && port_open "$NGINX_ONESHOT_PORT" && [ -S "$state/nginx.sock" ]; then
          return 0
        fi
        sleep 0.1
      done
      stop_nginx "$state"
      servers_die "nginx started but ports $NGINX_HTTP_PORT/$NGINX_HTTPS_PORT/$NGINX_H2_PORT do not accept; see $state/error.log"
    fi
    echo "servers: nginx failed to start (attempt $attempt); last lines of $state/error.log:" >&2
    tail -n 5 "$state/error.log" >&2 || true
  done
  servers_die "nginx would not start; config $state/nginx.conf, log $state/error.log"
}
