# shellcheck shell=bash
# lighttpd: the HTTP Digest (RFC 7616) server of the integration tests, on
# 127.0.0.1 only, plain HTTP/1.1. Each location serves FILES and asks for Digest with
# the user SLUICE_DIGEST_USER: /digest-md5/ (algorithm MD5), /digest-sha256/
# (SHA-256), /digest-both/ (two WWW-Authenticate headers: SHA-256 and MD5). Source it
# after lib.sh; it defines functions only. It runs in the foreground (-D) under
# lib.sh's daemon_* functions, with its own config and logs in STATE: the system
# lighttpd the Debian package may have started (port 80) is neither used nor touched.

SLUICE_DIGEST_USER=sluice-digest
SLUICE_DIGEST_PASSWORD=digest-pass.7

# write_htdigest FILE USER PASSWORD REALM...: one line per realm for each of MD5 and
# SHA-256: USER:REALM:hex(H(USER:REALM:PASSWORD)). lighttpd tells the algorithms
# apart by the length of the hash.
write_htdigest() {
  local file=$1 user=$2 password=$3 realm
  shift 3
  : > "$file"
  for realm in "$@"; do
    printf '%s:%s:%s\n' "$user" "$realm" \
      "$(printf '%s' "$user:$realm:$password" | md5sum | cut -d' ' -f1)" >> "$file"
    printf '%s:%s:%s\n' "$user" "$realm" \
      "$(printf '%s' "$user:$realm:$password" | sha256sum | cut -d' ' -f1)" >> "$file"
  done
}

# write_lighttpd_conf STATE FILES PORT
write_lighttpd_conf() {
  # No server.username: started as root it stays root (as nginx does here), so a
  # private build tree stays readable.
  local state=$1 files=$2 port=$3
  cat > "$state/lighttpd.conf" <<CONF
server.modules = ("mod_alias", "mod_auth", "mod_authn_file")
server.document-root = "$files"
server.bind = "127.0.0.1"
server.port = $port
server.errorlog = "$state/lighttpd-error.log"
alias.url = (
  "/digest-md5/" => "$files/",
  "/digest-sha256/" => "$files/",
  "/digest-both/" => "$files/",
)
auth.backend = "htdigest"
auth.backend.htdigest.userfile = "$state/htdigest"
auth.require = (
  "/digest-md5/" => ("method" => "digest", "realm" => "sluice md5",
                     "algorithm" => "MD5", "require" => "valid-user"),
  "/digest-sha256/" => ("method" => "digest", "realm" => "sluice sha256",
                        "algorithm" => "SHA-256", "require" => "valid-user"),
  "/digest-both/" => ("method" => "digest", "realm" => "sluice both",
                      "algorithm" => "SHA-256|MD5", "require" => "valid-user"),
)
CONF
  write_htdigest "$state/htdigest" "$SLUICE_DIGEST_USER" "$SLUICE_DIGEST_PASSWORD" \
    "sluice md5" "sluice sha256" "sluice both"
}

# start_lighttpd STATE FILES: starts lighttpd on a new free port and sets LIGHTTPD_PORT.
start_lighttpd() {
  local state=$1 files=$2 attempt log=$1/lighttpd.log
  daemon_stop "$state" lighttpd
  for attempt in 1 2 3; do
    take_free_port LIGHTTPD_PORT
    write_lighttpd_conf "$state" "$files" "$LIGHTTPD_PORT"
    daemon_start "$state" lighttpd "$log" lighttpd -D -f "$state/lighttpd.conf"
    daemon_wait_accepting "$state" lighttpd "$LIGHTTPD_PORT" && return 0
    echo "servers: lighttpd failed to start on port $LIGHTTPD_PORT (attempt $attempt);" \
      "last lines of $log and $state/lighttpd-error.log:" >&2
    tail -n 5 "$log" "$state/lighttpd-error.log" >&2 || true
    daemon_stop "$state" lighttpd
  done
  servers_die "lighttpd would not start; log $log"
}

# stop_lighttpd STATE: stops the lighttpd of STATE, if it runs.
stop_lighttpd() {
  daemon_stop "$1" lighttpd
}
