"""A loopback HTTP server on two ports that notes the credentials each request brings,
so that tests can see what sluice (and curl, for comparison) sent to which origin.

Usage: secrets_peer.py PORT_FILE LOG_FILE   (or --sha256: the hash of /file.bin)
It listens on two ports of 127.0.0.1 and writes "PORT_A PORT_B" to PORT_FILE, then
serves until killed. Every request adds one line to LOG_FILE:
  "<port> <method> <path> range=<Range> authorization=<...> cookie=<...>
   proxy-authorization=<...>"   (one line; "-" for a field that is absent)
Answers:
  GET /to?url=URL    302 to URL (percent-decoded)
  /file.bin          4 MiB of fixed bytes, with byte ranges (206) and HEAD
  /auth/file.bin     the same, only with Basic user:secret (401 otherwise)
  /cut/file.bin      the same, but each body stops half way (the connection closes)
  anything else      200 "ok"
"""

import hashlib
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

SIZE = 4 << 20
BODY = (bytes(range(251)) * (SIZE // 251 + 1))[:SIZE]
USER_SECRET = "Basic dXNlcjpzZWNyZXQ="  # user:secret
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def note(self):
        fields = [str(self.server.server_address[1]), self.command, self.path]
        for name in ("range", "authorization", "cookie", "proxy-authorization"):
            fields.append(name + "=" + self.headers.get(name, "-"))
        with LOCK, open(self.server.log_file, "a") as log:
            log.write(" ".join(fields) + "\n")

    def answer(self, status, body=b"", extra=(), cut=False):
        self.send_response(status)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command == "HEAD":
            return
        if cut:  # half the body, then the connection closes
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)

    def serve_file(self, cut=False):
        wanted = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("range", ""))
        if not wanted:
            self.answer(200, BODY, [("Accept-Ranges", "bytes"), ("ETag", '"v1"')], cut)
            return
        first = int(wanted.group(1))
        last = min(int(wanted.group(2)) if wanted.group(2) else SIZE - 1, SIZE - 1)
        self.answer(206, BODY[first:last + 1],
                    [("Content-Range", "bytes %d-%d/%d" % (first, last, SIZE)),
                     ("ETag", '"v1"')], cut)

    def do_GET(self):
        self.note()
        target = urlsplit(self.path)
        if target.path == "/to":
            self.answer(302, b"", [("Location", parse_qs(target.query)["url"][0])])
        elif target.path == "/file.bin":
            self.serve_file()
        elif target.path == "/cut/file.bin":
            self.serve_file(cut=True)
        elif target.path == "/auth/file.bin":
            if self.headers.get("authorization") == USER_SECRET:
                self.serve_file()
            else:
                self.answer(401, b"", [("WWW-Authenticate", 'Basic realm="peer"')])
        else:
            self.answer(200, b"ok\n")

    do_HEAD = do_GET


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that closes a range it no longer needs resets the connection:
        # nothing to report.
        pass


def main():
    if sys.argv[1] == "--sha256":  # what a whole /file.bin download must hash to
        print(hashlib.sha256(BODY).hexdigest())
        return
    port_file, log_file = sys.argv[1], sys.argv[2]
    servers = []
    for _ in range(2):
        server = Server(("127.0.0.1", 0), Handler)
        server.log_file = log_file
        servers.append(server)
        threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(port_file + ".tmp", "w") as out:
        out.write(" ".join(str(s.server_address[1]) for s in servers))
    os.rename(port_file + ".tmp", port_file)
    threading.Event().wait()


if __name__ == "__main__":
    main()
