#!/usr/bin/env python3
"""The loopback peer of cli_input_safety.sh: an HTTP/1.1 server that writes every
request head it reads to LOG (a SOCKS5 greeting instead: it grants it, and notes the
greeting and whatever follows in hex). It answers by path:
  /location?to=X          302 with Location: X (percent-decoded, so raw bytes go)
  /cd/NAME?v=X            200 with Content-Disposition: X
  /cookies/set?c=X&c=Y    200 with one Set-Cookie per c
  /cookies/echo           200, the body "cookie=[the Cookie field it received]"
  /chunk?size=HEX         200 chunked, one chunk announced as HEX, 5 bytes of it, close
  /length?n=N             200 with Content-Length: N, 5 bytes of it, close
  anything else           200 "payload"
Usage: input_peer.py PORT_FILE LOG (the port is written to PORT_FILE once it listens).
"""
import os, socket, sys, threading, urllib.parse
port_file, log_path = sys.argv[1], sys.argv[2]
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
lock = threading.Lock()

def log(data):
    with lock, open(log_path, "ab") as f:
        f.write(data)

def answer(target, head):
    path, _, query = target.partition("?")
    params = urllib.parse.parse_qs(query, keep_blank_values=True)
    one = lambda k: params.get(k, [""])[0].encode("latin-1")
    if path == "/location":
        return b"HTTP/1.1 302 Found\r\nLocation: " + one("to") + b"\r\nContent-Length: 0\r\n\r\n", False
    if path == "/chunk":
        return (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + one("size") +
                b"\r\nhello", True)
    if path == "/length":
        return b"HTTP/1.1 200 OK\r\nContent-Length: " + one("n") + b"\r\n\r\nhello", True
    extra, body = b"", b"payload\n"
    if path.startswith("/cd/"):
        extra = b"Content-Disposition: " + one("v") + b"\r\n"
    elif path == "/cookies/set":
        for value in params.get("c", []):
            extra += b"Set-Cookie: " + value.encode("latin-1") + b"\r\n"
    elif path == "/cookies/echo":
        cookie = b""
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"cookie:"):
                cookie = line[7:].strip()
        body = b"cookie=[" + cookie + b"]\n"
    return (b"HTTP/1.1 200 OK\r\n" + extra + b"Content-Length: " + str(len(body)).encode() +
            b"\r\n\r\n" + body, False)

def serve(conn):
    data = conn.recv(65536)
    if data[:1] == b"\x05":
        log(b"socks greeting " + data.hex().encode() + b"\n")
        conn.sendall(b"\x05\x00")
        log(b"socks then " + conn.recv(65536).hex().encode() + b"\n")
        conn.close()
        return
    while data:
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _, data = data.partition(b"\r\n\r\n")
        log(head + b"\r\n\r\n")
        reply, close = answer(head.split(b"\r\n")[0].split(b" ")[1].decode("latin-1"), head)
        conn.sendall(reply)
        if close:
            break
        if not data:
            data = conn.recv(65536)
    conn.close()

with open(port_file + ".tmp", "w") as f:
    f.write(str(listener.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)
while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
