"""A loopback HTTP server that checks AWS Signature Version 4 on every request with an
implementation of its own (hmac and hashlib, written from AWS's description of the
algorithm, sharing nothing with sluice), so that sluice and curl are judged alike.

Usage: aws_sigv4_peer.py PORT_FILE LOG_FILE
It writes its port to PORT_FILE, then serves until killed. Every request gets a line
in LOG_FILE: "<METHOD> <target> verified <signed headers>", "... unsigned", or
"... refused <reason>". Answers: 200 "verified" when the signature holds, 403 with the
reason otherwise (401 when there is none). GET /redirect?to=URL answers 302 to URL
once its own signature holds, so each hop is checked on its own.

The key pair: AKIDEXAMPLE / wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY.
"""

import datetime
import hashlib
import hmac
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, unquote

SECRETS = {"AKIDEXAMPLE": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}
AUTHORIZATION = re.compile(
    r"^(?P<alg>[A-Z0-9]+)4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/"
    r"(?P<region>[^/]+)/(?P<service>[^/]+)/(?P<request>[a-z0-9]+4_request), "
    r"SignedHeaders=(?P<signed>[a-z0-9;-]+), Signature=(?P<signature>[0-9a-f]{64})$")


def encode(text):
    # Unreserved characters stay; every other byte becomes %XX in capitals.
    return quote(text, safe="~")


def canonical_path(raw, s3):
    if s3:
        return "/".join(encode(unquote(segment)) for segment in raw.split("/"))
    # Other services: dot and empty segments go, then the path as sent is encoded.
    kept = []
    segments = raw.split("/")[1:]
    for segment in segments:
        if segment == "..":
            if kept:
                kept.pop()
        elif segment not in ("", "."):
            kept.append(segment)
    path = "/" + "/".join(kept)
    if kept and segments and segments[-1] in ("", ".", ".."):
        path += "/"
    return quote(path, safe="/~")


def canonical_query(raw):
    pairs = []
    for piece in raw.split("&"):
        if not piece:
            continue
        name, _, value = piece.partition("=")
        pairs.append((encode(unquote(name)), encode(unquote(value))))
    return "&".join(name + "=" + value for name, value in sorted(pairs))


def hmac_sha256(key, text):
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        length = int(self.headers.get("Content-Length", "0") or "0")
        if self.headers.get("Expect", "").lower() == "100-continue":
            self.send_response_only(100)
            self.end_headers()
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(length)

    def verdict(self, body):
        header = self.headers.get("Authorization")
        if header is None:
            return None, "unsigned"
        found = AUTHORIZATION.match(header)
        if not found:
            return False, "an Authorization that is not SigV4: " + header
        provider = found["alg"].lower()
        if found["request"] != provider + "4_request":
            return False, "the scope ends in " + found["request"]
        secret = SECRETS.get(found["key"])
        if secret is None:
            return False, "unknown access key " + found["key"]
        date_name = "x-amz-date" if provider == "aws" else "x-" + provider + "-date"
        stamp = self.headers.get(date_name, "")
        try:
            when = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(
                tzinfo=datetime.timezone.utc)
        except ValueError:
            return False, "no usable " + date_name + ": " + stamp
        if abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) > 900:
            return False, "the signature's time is more than 15 minutes off"
        if stamp[:8] != found["date"]:
            return False, "the credential's date is not the request's"
        signed = found["signed"].split(";")
        if "host" not in signed:
            return False, "host is not signed"
        lines = []
        for name in signed:
            values = self.headers.get_all(name)
            if values is None:
                return False, "the signed header " + name + " is missing"
            lines.append(name + ":" + ",".join(" ".join(v.split()) for v in values))
        payload = self.headers.get("x-amz-content-sha256") or hashlib.sha256(body).hexdigest()
        path, _, query = self.path.partition("?")
        s3 = found["service"] == "s3"
        canonical = "\n".join([self.command, canonical_path(path, s3), canonical_query(query),
                               "\n".join(lines) + "\n", found["signed"], payload])
        scope = "/".join([found["date"], found["region"], found["service"], found["request"]])
        to_sign = "\n".join([found["alg"] + "4-HMAC-SHA256", stamp, scope,
                             hashlib.sha256(canonical.encode()).hexdigest()])
        key = (found["alg"] + "4" + secret).encode()
        for part in (found["date"], found["region"], found["service"], found["request"]):
            key = hmac_sha256(key, part)
        expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, found["signature"]):
            return False, "the signature does not match; canonical request:\n" + canonical
        return True, "verified " + found["signed"]

    def answer(self):
        body = self.body()
        ok, reason = self.verdict(body)
        with open(LOG, "a") as log:
            log.write(self.command + " " + self.path + " " + reason.split("\n")[0] + "\n")
        if ok and self.path.startswith("/redirect?to="):
            self.send_response(302)
            self.send_header("Location", unquote(self.path[len("/redirect?to="):]))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        status = 200 if ok else (401 if ok is None else 403)
        text = ("verified" if ok else reason).encode() + b"\n"
        self.send_response(status)
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(text)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = answer


if __name__ == "__main__":
    PORT_FILE, LOG = sys.argv[1], sys.argv[2]
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(PORT_FILE + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(PORT_FILE + ".tmp", PORT_FILE)
    server.serve_forever()
