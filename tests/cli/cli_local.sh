#!/usr/bin/env bash
# `sluice` against local peers that misbehave on purpose (a refused port, a server
# that never answers, a body cut short), plus output failures on the local side.
# Usage: cli_local.sh SLUICE_BINARY CASE
SLUICE=$1
. "$(dirname "$0")/lib.sh"

# start_peer MODE: a loopback HTTP peer in the background; sets PEER_URL.
#   ok        answers every request with 200 and the body "hello from the peer\n"
#   silent    accepts, reads the request, never answers
#   truncated announces Content-Length: 100000, sends 1000 bytes, closes
#   http10    answers with an HTTP/1.0 status line, then closes
#   chunked   answers 200 with a chunked body of 100000 bytes (no Content-Length)
#   echo      answers 200 with the request itself (head and body, chunked decoded)
#   flaky     answers the first request 503 (Retry-After: 0), the next ones with "ok"
#   cut       serves /big (100000 bytes, ETag "v1"): the first answer stops after
#             40000 bytes; later ones answer a Range with 206 from its offset
#   cut-full  the same, but later answers ignore the Range: 200 with the whole body
start_peer() {
  local port_file=$SCRATCH/peer.port
  rm -f "$port_file"
  python3 - "$1" "$port_file" <<'PY' &
import socket, sys, threading, time
mode, port_file = sys.argv[1], sys.argv[2]
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
with open(port_file + ".tmp", "w") as f:
    f.write(str(listener.getsockname()[1]))
import os
os.rename(port_file + ".tmp", port_file)

BIG = bytes((i * 7) % 251 for i in range(100000))
requests = []

def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    return data

def read_exact(conn, data, size):
    while len(data) < size:
        chunk = conn.recv(65536)
        if not chunk:
            raise EOFError
        data += chunk
    return data

def read_body(conn, head, rest):
    fields = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        fields[name.strip().lower()] = value.strip()
    if b"content-length" in fields:
        return read_exact(conn, rest, int(fields[b"content-length"]))[:int(fields[b"content-length"])]
    if fields.get(b"transfer-encoding", b"").lower() != b"chunked":
        return b""
    body, data = b"", rest
    while True:
        while b"\r\n" not in data:
            data = read_exact(conn, data, len(data) + 1)
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        data = read_exact(conn, data, size + 2)
        body, data = body + data[:size], data[size + 2:]
        if size == 0:
            return body

def serve(conn):
    with conn:
        while True:
            head = read_head(conn)
            if head is None:
                return
            requests.append(head)
            if mode == "chunked":
                conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
                             b"".join(b"%x\r\n%s\r\n" % (10000, BIG[i:i + 10000])
                                      for i in range(0, 100000, 10000)) + b"0\r\n\r\n")
                continue
            if mode == "echo":
                head_part, _, rest = head.partition(b"\r\n\r\n")
                body = read_body(conn, head_part, rest)
                echoed = head_part + b"\r\n\r\n" + body
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(echoed) + echoed)
                continue
            if mode == "flaky":
                if len(requests) == 1:
                    conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\n"
                                 b"Content-Length: 5\r\n\r\nbusy\n")
                    continue
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
                continue
            if mode in ("cut", "cut-full"):
                ranged = b"\r\nrange: bytes=" in head.lower() and b'if-range: "v1"' in head.lower()
                if len(requests) == 1:
                    conn.sendall(b'HTTP/1.1 200 OK\r\nETag: "v1"\r\nContent-Length: 100000\r\n\r\n'
                                 + BIG[:40000])
                    return
                if mode == "cut" and ranged:
                    start = int(head.lower().split(b"range: bytes=")[1].split(b"-")[0])
                    conn.sendall(b'HTTP/1.1 206 Partial Content\r\nETag: "v1"\r\n'
                                 b"Content-Range: bytes %d-99999/100000\r\n"
                                 b"Content-Length: %d\r\n\r\n" % (start, 100000 - start) + BIG[start:])
                    continue
                conn.sendall(b'HTTP/1.1 200 OK\r\nETag: "v1"\r\nContent-Length: 100000\r\n\r\n' + BIG)
                continue
            if mode == "silent":
                time.sleep(60)
                return
            if mode == "truncated":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n"
                             b"Content-Type: application/octet-stream\r\n\r\n" + b"x" * 1000)
                return
            body = b"hello from the peer\n"
            if mode == "http10":
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
                return
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(body) + body)

while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
PY
  BACKGROUND_PIDS+=($!)
  wait_for_port_file "$port_file" "$1"
  PEER_URL=http://127.0.0.1:$(cat "$port_file")
}

# The body the cut peers serve, for comparing.
big_body() {
  python3 -c 'import sys; sys.stdout.buffer.write(bytes((i * 7) % 251 for i in range(100000)))'
}

case_retry_in_fetch_mode_retries_a_503_and_writes_to_stdout() {
  start_peer flaky
  (cd "$SCRATCH" && run_sluice --retry 2 -w '|%{http_code} %{num_retries}' "$PEER_URL/file.txt")
  expect_code 0
  expect_stdout $'ok\n|200 1'
  [ ! -e "$SCRATCH/file.txt" ] || fail "--retry switched to downloader mode and wrote file.txt"
  grep -q '^sluice: .*503.*retrying in 0 s (2 retries left)' "$ERR" || fail "no retry warning"
}

case_retry_without_retries_left_reports_the_last_answer() {
  start_peer flaky
  run_sluice -f --retry 0 "$PEER_URL/"
  expect_code 22
  expect_one_error "503"
}

case_retry_continues_a_cut_body_on_stdout_from_a_range() {
  start_peer cut
  run_sluice --retry 1 --retry-delay 0.01 "$PEER_URL/big"
  expect_code 0
  cmp -s "$OUT" <(big_body) || fail "stdout is not the 100000-byte body ($(stat -c %s "$OUT") bytes)"
  grep -q 'continuing after the 40000 bytes written' "$ERR" || fail "the retry note does not say what was kept"
}

case_retry_skips_what_was_written_when_the_server_ignores_the_range() {
  start_peer cut-full
  run_sluice --retry 1 --retry-delay 0.01 -o "$SCRATCH/big.bin" "$PEER_URL/big"
  expect_code 0
  cmp -s "$SCRATCH/big.bin" <(big_body) || fail "the file is not the 100000-byte body"
}

# -v on a retry with the meter drawn (a terminal, -o FILE): the trace lines of the
# HTTP thread and the retry's heads go above the bar. Written past it, they would be
# overwritten by its next redraw, and a stale bar would stay among them.
case_verbose_lines_of_a_retry_stay_above_the_meter() {
  start_peer cut
  local typescript=$SCRATCH/typescript
  SLUICE_BIN=$SLUICE URL="$PEER_URL/big" OUTFILE="$SCRATCH/big.bin" \
    script -qfec '"$SLUICE_BIN" -v --retry 1 --retry-delay 0.01 -o "$OUTFILE" "$URL"' \
    "$typescript" > /dev/null
  cmp -s "$SCRATCH/big.bin" <(big_body) || fail "the file is not the 100000-byte body"
  grep -aq 'continuing after the 40000 bytes written' "$typescript" || fail "no retry: $(cat -A "$typescript")"
  # What the terminal shows at the end: the typescript played on a screen that knows
  # the bar's moves (CR, LF, cursor up, erase to the end of the line or screen).
  python3 - "$typescript" > "$SCRATCH/screen" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
data = data.split("\n", 1)[1].rsplit("\nScript done", 1)[0]  # script's own lines
rows, row, col = [""], 0, 0
for token in re.findall(r"\x1b\[(\d*)([AKJ])|(\r)|(\n)|([^\x1b\r\n]+)|(\x1b)", data):
    count, code, cr, lf, text, _ = token
    if cr:
        col = 0
    elif lf:
        row += 1
        if row == len(rows):
            rows.append("")
    elif code == "A":
        row = max(0, row - int(count or 1))
    elif code == "K":
        rows[row] = rows[row][:col]
    elif code == "J":
        rows[row] = rows[row][:col]
        del rows[row + 1:]
    elif text:
        line = rows[row].ljust(col)
        rows[row] = line[:col] + text + line[col + len(text):]
        col += len(text)
print("\n".join(rows))
PY
  local line
  for line in '* c2 h1: response 206' '> Range: bytes=40000-' '< HTTP/1.1 206' \
              '< Content-Range: bytes 40000-99999/100000'; do
    grep -qxF -- "$line" "$SCRATCH/screen" || fail "the screen lost '$line': $(cat "$SCRATCH/screen")"
  done
  ! grep -qE ' 40%( |$)' "$SCRATCH/screen" || fail "a stale bar stayed on the screen: $(cat "$SCRATCH/screen")"
  grep -q '100%' "$SCRATCH/screen" || fail "no final bar: $(cat "$SCRATCH/screen")"
}

case_download_retry_against_a_server_that_ignores_ranges_completes() {
  start_peer cut-full
  run_sluice -O --output-dir "$SCRATCH" --retry 1 --retry-delay 0.01 "$PEER_URL/big"
  expect_code 0
  cmp -s "$SCRATCH/big" <(big_body) || fail "the downloaded file is not the 100000-byte body"
}

case_limit_rate_alone_fetches_to_stdout() {
  start_peer ok
  (cd "$SCRATCH" && run_sluice --limit-rate 1M "$PEER_URL/name.txt")
  expect_code 0
  expect_stdout $'hello from the peer\n'
  [ ! -e "$SCRATCH/name.txt" ] || fail "--limit-rate switched to downloader mode"
}

# The request the echo peer got ($OUT): its body after the blank line, to FILE.
echoed_body_to() {
  python3 -c 'import sys; sys.stdout.buffer.write(open(sys.argv[1], "rb").read().split(b"\r\n\r\n", 1)[1])' "$OUT" > "$1"
}

case_form_sends_fields_and_streams_a_file_as_multipart() {
  start_peer echo
  head -c 300000 /dev/urandom > "$SCRATCH/data.bin"
  printf 'from a file' > "$SCRATCH/note.txt"
  run_sluice -F name=value -F "file=@$SCRATCH/data.bin;type=application/x-test" \
    -F "note=<$SCRATCH/note.txt" -F 'pic=@'"$SCRATCH/note.txt"';filename=a"b.png' \
    --form-string 'raw=@not-a-file;type=x' "$PEER_URL/form"
  expect_code 0
  python3 - "$OUT" "$SCRATCH/data.bin" <<'PY' || fail "the multipart body is wrong (see above)"
import email.parser, email.policy, sys
raw = open(sys.argv[1], "rb").read()
head, body = raw.split(b"\r\n\r\n", 1)
lines = head.decode().split("\r\n")
assert lines[0] == "POST /form HTTP/1.1", lines[0]
fields = dict(l.split(": ", 1) for l in lines[1:])
ctype = fields["Content-Type"]
assert ctype.startswith("multipart/form-data; boundary="), ctype
assert int(fields["Content-Length"]) == len(body), (fields["Content-Length"], len(body))
msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
    b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
parts = [(p.get_param("name", header="content-disposition"),
          p.get_param("filename", header="content-disposition"),
          p.get_content_type(), p.get_payload(decode=True)) for p in msg.iter_parts()]
data = open(sys.argv[2], "rb").read()
expected = [("name", None, "text/plain", b"value"),
            ("file", "data.bin", "application/x-test", data),
            ("note", None, "text/plain", b"from a file"),
            ("pic", "a%22b.png", "image/png", b"from a file"),
            ("raw", None, "text/plain", b"@not-a-file;type=x")]
for got, want in zip(parts, expected):
    assert got == want, (got[:3], want[:3], len(got[3]), len(want[3]))
assert len(parts) == len(expected), len(parts)
PY
}

case_get_with_data_urlencode_puts_the_data_in_the_query() {
  start_peer echo
  run_sluice -G --data-urlencode 'q=a b&c/é' --data-urlencode '=x y' -d 'n=1' "$PEER_URL/search?lang=en"
  expect_code 0
  head -n 1 "$OUT" | grep -qxF $'GET /search?lang=en&q=a%20b%26c%2F%C3%A9&x%20y&n=1 HTTP/1.1\r' \
    || fail "the request line is $(head -n 1 "$OUT")"
}

case_json_posts_concatenated_pieces_with_json_headers() {
  start_peer echo
  printf '"b"]' > "$SCRATCH/tail.json"
  run_sluice --json '["a",' --json @"$SCRATCH/tail.json" "$PEER_URL/api"
  expect_code 0
  for line in $'POST /api HTTP/1.1\r' $'Content-Type: application/json\r' $'Accept: application/json\r'; do
    grep -qxF -- "$line" "$OUT" || fail "the request lacks '$line'"
  done
  echoed_body_to "$SCRATCH/body"
  [ "$(cat "$SCRATCH/body")" = '["a","b"]' ] || fail "the JSON body is '$(cat "$SCRATCH/body")'"
}

case_data_raw_sends_an_at_sign_as_is() {
  start_peer echo
  run_sluice --data-raw '@not-a-file' "$PEER_URL/"
  expect_code 0
  echoed_body_to "$SCRATCH/body"
  [ "$(cat "$SCRATCH/body")" = '@not-a-file' ] || fail "the body is '$(cat "$SCRATCH/body")'"
}

case_upload_file_puts_it_under_its_name() {
  start_peer echo
  head -c 200000 /dev/urandom > "$SCRATCH/my file.bin"
  run_sluice -T "$SCRATCH/my file.bin" "$PEER_URL/dir/"
  expect_code 0
  head -n 1 "$OUT" | grep -qxF $'PUT /dir/my%20file.bin HTTP/1.1\r' || fail "the request line is $(head -n 1 "$OUT")"
  echoed_body_to "$SCRATCH/body"
  cmp -s "$SCRATCH/body" "$SCRATCH/my file.bin" || fail "the uploaded bytes differ"
}

case_upload_from_stdin_streams_it_chunked() {
  start_peer echo
  head -c 150000 /dev/urandom > "$SCRATCH/in.bin"
  run_sluice -T - "$PEER_URL/up" < "$SCRATCH/in.bin"
  expect_code 0
  grep -qxF $'Transfer-Encoding: chunked\r' "$OUT" || fail "stdin was not sent chunked"
  echoed_body_to "$SCRATCH/body"
  cmp -s "$SCRATCH/body" "$SCRATCH/in.bin" || fail "the uploaded bytes differ"
}

case_body_options_that_contradict_are_refused() {
  run_sluice -F a=b -d c=d http://127.0.0.1:1/
  expect_code 2
  expect_one_error "-F"
  run_sluice -T /etc/hostname -d c=d http://127.0.0.1:1/
  expect_code 2
  expect_one_error "-T"
  run_sluice -F 'a=@/no/such/file' http://127.0.0.1:1/
  expect_code 26
  expect_one_error "/no/such/file"
}

case_fail_with_body_writes_the_body_and_exits_22() {
  start_peer flaky
  run_sluice --fail-with-body "$PEER_URL/"
  expect_code 22
  expect_one_error "503"
  expect_stdout $'busy\n'
  run_sluice -f --fail-with-body "$PEER_URL/"
  expect_code 2
}

case_remove_on_error_leaves_no_partial_file() {
  start_peer truncated
  run_sluice --remove-on-error -o "$SCRATCH/part.bin" "$PEER_URL/big"
  expect_code 18
  [ ! -e "$SCRATCH/part.bin" ] || fail "the partial file was kept"
}

case_max_filesize_refuses_an_announced_or_growing_body() {
  start_peer truncated
  run_sluice --max-filesize 50K -o "$SCRATCH/big.bin" "$PEER_URL/big"
  expect_code 63
  expect_one_error "more than --max-filesize 51200"
  [ ! -e "$SCRATCH/big.bin" ] || fail "a file was created for a body refused by its length"
  start_peer chunked
  run_sluice --max-filesize 50K -o "$SCRATCH/chunked.bin" "$PEER_URL/c"
  expect_code 63
  expect_one_error "grew past --max-filesize 51200"
  [ "$(stat -c %s "$SCRATCH/chunked.bin")" -le 51200 ] || fail "more than the limit was written"
  run_sluice --max-filesize 100000 -o "$SCRATCH/chunked.bin" "$PEER_URL/c"
  expect_code 0
  cmp -s "$SCRATCH/chunked.bin" <(big_body) || fail "the chunked body differs"
}

case_json_summary_of_a_failed_download_says_what_it_got() {
  start_peer truncated
  run_sluice --json-summary -o "$SCRATCH/big.bin" "$PEER_URL/big"
  expect_code 18
  python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).read())
assert d["ok"] is False and d["exit_code"] == 18 and d["category"] == "protocol", d
assert d["path"] == sys.argv[2] and d["size"] == 100000, d
assert d["transferred"] == 1000 and d["bytes_on_disk"] == 1000 and d["resumed_from"] == 0, d' \
    "$OUT" "$SCRATCH/big.bin" || fail "the summary of the failure is wrong: $(cat "$OUT")"
}

case_connection_refused_exits_7() {
  local url=http://127.0.0.1:$(free_port)/
  run_sluice -w '%{exitcode} %{http_code}' "$url"
  expect_code 7
  expect_one_error "127.0.0.1"
  expect_stdout "7 000"
  expect_curls_code -s "$url"
}

case_silent_hides_errors_and_show_error_brings_them_back() {
  local url=http://127.0.0.1:$(free_port)/
  run_sluice -s "$url"
  expect_code 7
  expect_no_stderr
  run_sluice -sS "$url"
  expect_code 7
  expect_one_error "127.0.0.1"
}

case_max_time_expires_exits_28() {
  start_peer silent
  run_sluice -m 0.5 -w '%{exitcode}' "$PEER_URL/"
  expect_code 28
  expect_one_error ""
  expect_stdout "28"
  expect_curls_code -s -m 0.5 "$PEER_URL/"
}

case_truncated_body_exits_18_and_names_the_incomplete_file() {
  start_peer truncated
  run_sluice -o "$SCRATCH/part.bin" -w '%{exitcode} %{size_download}' "$PEER_URL/big"
  expect_code 18
  expect_one_error "'$SCRATCH/part.bin' is incomplete: 1000 bytes written"
  expect_stdout "18 1000"
  [ "$(stat -c %s "$SCRATCH/part.bin")" -eq 1000 ] || fail "the partial file is not 1000 bytes"
  expect_curls_code -s -o "$SCRATCH/curl-part.bin" "$PEER_URL/big"
}

case_http10_answer_is_reported_as_1_0() {
  start_peer http10
  run_sluice -v -o /dev/null -w '%{http_version}' "$PEER_URL/old"
  expect_code 0
  expect_stdout "1.0"
  grep -q "^< HTTP/1.0 200" "$ERR" || fail "-v does not show HTTP/1.0"
}

case_truncated_body_to_stdout_is_an_error() {
  start_peer truncated
  run_sluice "$PEER_URL/big"
  expect_code 18
  expect_one_error ""
  [ "$(stat -c %s "$OUT")" -eq 1000 ] || fail "stdout did not get the 1000 bytes that came"
  expect_curls_code -s "$PEER_URL/big"
}

case_full_disk_exits_23() {
  start_peer ok
  run_sluice -o /dev/full "$PEER_URL/"
  expect_code 23
  expect_one_error "/dev/full"
}

case_unwritable_output_path_exits_23() {
  start_peer ok
  run_sluice -o "$SCRATCH/no/such/dir/out.txt" "$PEER_URL/"
  expect_code 23
  expect_one_error "$SCRATCH/no/such/dir/out.txt"
}

case_output_file_and_write_out_after_the_body() {
  start_peer ok
  run_sluice -o "$SCRATCH/out.txt" -w '%{http_code}|%{content_type}|%{size_download}\n' "$PEER_URL/x"
  expect_code 0
  expect_no_stderr
  expect_stdout $'200|text/plain|20\n'
  [ "$(cat "$SCRATCH/out.txt")" = "hello from the peer" ] || fail "-o file has the wrong content"
  run_sluice -w '[%{http_code}]' "$PEER_URL/x"
  expect_code 0
  expect_stdout $'hello from the peer\n[200]'
}

case_write_out_headers_json_and_stderr() {
  start_peer ok
  run_sluice -o /dev/null -w '%{stderr}[%{http_code}]%{stdout}%header{content-type}|%header{X-None}|%{scheme}|%{size_header}|%{size_upload}\n%{json}' \
    -d 'abc' "$PEER_URL/x"
  expect_code 0
  [ "$(cat "$ERR")" = "[200]" ] || fail "stderr is '$(cat "$ERR")', expected [200]"
  local head_size
  head_size=$(printf 'HTTP/1.1 200\r\nContent-Type: text/plain\r\nContent-Length: 20\r\n\r\n' | wc -c)
  [ "$(head -n 1 "$OUT")" = "text/plain||http|$head_size|3" ] || fail "first line is '$(head -n 1 "$OUT")'"
  tail -n +2 "$OUT" | python3 -c 'import json, sys
d = json.load(sys.stdin)
assert d["http_code"] == 200 and d["size_download"] == 20 and d["size_upload"] == 3, d
assert d["scheme"] == "http" and d["content_type"] == "text/plain" and d["exitcode"] == 0, d
assert d["errormsg"] == "" and d["num_retries"] == 0 and d["url_effective"].endswith("/x"), d' \
    || fail "%{json} is wrong: $(tail -n +2 "$OUT")"
}

case_verbose_prints_request_and_response_heads() {
  start_peer ok
  run_sluice -v -A "cli-test/1" -H "X-Extra: yes" "$PEER_URL/path?q=1"
  expect_code 0
  expect_stdout $'hello from the peer\n'
  local line
  for line in "> GET /path?q=1 HTTP/1.1" "> Host: ${PEER_URL#http://}" "> User-Agent: cli-test/1" \
      "> X-Extra: yes" "< HTTP/1.1 200" "< Content-Type: text/plain" "< Content-Length: 20"; do
    grep -qxF -- "$line" "$ERR" || fail "-v output lacks the line '$line'"
  done
  # What the Client holds once the body is read: nothing in flight, nothing staged.
  grep -qE '^\* memory: 0 in flight, 0 paused, 0 B staged, .* scratch kept, 0 B of request bodies held, 1 connection, sweep freed [0-9]+ ' "$ERR" \
    || fail "-v output lacks the '* memory:' line: $(grep -F memory "$ERR")"
}

case_data_makes_a_form_post_and_header_options_replace_or_drop() {
  start_peer ok
  run_sluice -v -d 'a=1' -H "Accept: text/html" "$PEER_URL/form"
  expect_code 0
  local line
  for line in "> POST /form HTTP/1.1" "> Content-Type: application/x-www-form-urlencoded" \
      "> Accept: text/html" "> Content-Length: 3"; do
    grep -qxF -- "$line" "$ERR" || fail "-v output lacks the line '$line'"
  done
  grep -qxF "> Accept: */*" "$ERR" && fail "-H Accept did not replace the default Accept"
  run_sluice -v -X PUT -d 'a=1' -H "Content-Type:" "$PEER_URL/form"
  expect_code 0
  grep -qxF "> PUT /form HTTP/1.1" "$ERR" || fail "-X PUT did not set the method"
  grep -qi "^> Content-Type" "$ERR" && fail "-H 'Content-Type:' did not drop the header"
  return 0
}

run_case "$2"
