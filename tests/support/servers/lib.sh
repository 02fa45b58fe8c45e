# shellcheck shell=bash
# Shell functions shared by start.sh, stop.sh and `./dev demo`: certificates, free
# loopback ports, and one nginx instance per state directory. Source it; it defines
# functions only. Every file an instance uses lives in its state directory, so two
# instances (a test run and a demo) never share anything.

SLUICE_SERVERS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

servers_die() {
  echo "servers: $*" >&2
  exit 1
}

# make_certs DIR: a CA (ca.pem, ca.key) and a localhost certificate it signs
# (server.pem, server.key) for DNS:localhost, IP:127.0.0.1 and IP:::1.
make_certs() {
  local dir=$1
  mkdir -p "$dir"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
    -subj "/CN=sluice test CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null \
    || servers_die "openssl could not create the test CA in $dir"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -subj "/CN=localhost" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null \
    || servers_die "openssl could not create the server key in $dir"
  cat > "$dir/server.ext" <<EXT
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
EXT
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -CAcreateserial -days 30 -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null \
    || servers_die "openssl could not sign the server certificate in $dir"
  rm -f "$dir/server.csr" "$dir/ca.srl"
}

# ipv6_loopback: succeeds when ::1 can be bound here (containers may lack it).
ipv6_loopback() {
  python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null
}

# free_ports N: prints N distinct TCP ports free on 127.0.0.1 (and on ::1 when it
# exists, since "localhost" may resolve there). A port can still be taken before
# nginx binds it; start_nginx retries with new ports when that happens.
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
want, found, held = int(sys.argv[1]), [], []
while len(found) < want:
    s4 = socket.socket(socket.AF_INET)
    s4.bind(("127.0.0.1", 0))
    port = s4.getsockname()[1]
    held.append(s4)
    try:
        s6 = socket.socket(socket.AF_INET6)
        s6.bind(("::1", port))
        held.append(s6)
    except OSError as e:
        if e.errno != 98:  # EADDRINUSE: try another; anything else: no IPv6 here
            found.append(port)
        continue
    found.append(port)
print(" ".join(map(str, found)))
PY
}

# port_open PORT: succeeds when 127.0.0.1:PORT accepts a connection.
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# write_nginx_conf STATE FILES HTTP_PORT HTTPS_PORT: STATE/nginx.conf from the
# template, serving FILES on both ports with STATE/certs/server.{pem,key}.
write_nginx_conf() {
  local state=$1 files=$2 http_port=$3 https_port=$4
  local listen6_http="" listen6_https="" user_line=""
  if ipv6_loopback; then
    listen6_http="listen [::1]:$http_port;"
    listen6_https="listen [::1]:$https_port ssl;"
  fi
  # As root, workers would run as nobody and could not read a private build tree.
  if [ "$(id -u)" = 0 ]; then
    user_line="user root root;"
  fi
  sed -e "s|@STATE@|$state|g" -e "s|@FILES@|$files|g" \
      -e "s|@HTTP_PORT@|$http_port|g" -e "s|@HTTPS_PORT@|$https_port|g" \
      -e "s|@LISTEN6_HTTP@|$listen6_http|g" -e "s|@LISTEN6_HTTPS@|$listen6_https|g" \
      -e "s|@USER_LINE@|$user_line|g" \
      "$SLUICE_SERVERS_DIR/nginx.conf.in" > "$state/nginx.conf"
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
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "servers: nginx $pid ignored SIGTERM for 10 s; sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pid_file"
}

# start_nginx STATE FILES: starts nginx (daemon) on two new free ports serving FILES
# and sets NGINX_HTTP_PORT and NGINX_HTTPS_PORT. Needs STATE/certs (make_certs).
start_nginx() {
  local state=$1 files=$2 attempt ports
  mkdir -p "$state/tmp"
  stop_nginx "$state"
  for attempt in 1 2 3; do
    ports=$(free_ports 2)
    NGINX_HTTP_PORT=${ports% *}
    NGINX_HTTPS_PORT=${ports#* }
    write_nginx_conf "$state" "$files" "$NGINX_HTTP_PORT" "$NGINX_HTTPS_PORT"
    if nginx -e "$state/error.log" -p "$state" -c "$state/nginx.conf"; then
      for _ in $(seq 100); do
        if port_open "$NGINX_HTTP_PORT" && port_open "$NGINX_HTTPS_PORT"; then
          return 0
        fi
        sleep 0.1
      done
      stop_nginx "$state"
      servers_die "nginx started but ports $NGINX_HTTP_PORT/$NGINX_HTTPS_PORT do not accept; see $state/error.log"
    fi
    echo "servers: nginx failed to start (attempt $attempt); last lines of $state/error.log:" >&2
    tail -n 5 "$state/error.log" >&2 || true
  done
  servers_die "nginx would not start; config $state/nginx.conf, log $state/error.log"
}
