#!/usr/bin/env python3
"""Connect time to a name whose first address is black-holed: sluice against curl.

Happy Eyeballs' figure (bench/README.md). A local HTTP server listens on 127.0.0.1:PORT; the black hole is a
listener on the same port whose full accept queue makes the kernel drop SYNs (a
firewalled or unroutable address looks the same to a client). Each client is given
both addresses for one name with --resolve, the black hole first, and asked for a
small file; -w '%{time_connect}' reports when TCP connected.

Two cases:
  family: the black hole on [::1], the server on 127.0.0.1 (a broken IPv6 route):
          both clients race the families (curl after 200 ms, sluice after 250 ms).
  same:   the black hole on 127.0.0.3, the server on 127.0.0.1 (two IPv4 addresses):
          sluice staggers every address (RFC 8305); curl moves to the next address of
          a family only when its share of the connect timeout has run out.

Usage: bench/connect_race.py SLUICE_BINARY [--runs N] [--connect-timeout SEC]
Prints `name value` lines: medians in ms, and sluice/curl ratios (lower is faster)."""

import argparse
import http.server
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading


def black_hole(ip, port):
    """A listener on ip:port whose queue is full: SYNs to it go unanswered."""
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((ip, port))
    listener.listen(0)
    fillers = []
    for _ in range(8):
        filler = socket.socket(family, socket.SOCK_STREAM)
        filler.setblocking(False)
        fillers.append(filler)
        try:
            filler.connect((ip, port))
        except BlockingIOError:
            pass
        import select
        _, writable, _ = select.select([], [filler], [], 0.2)
        if not writable:
            return listener, fillers  # this one hangs: the hole is ready
    raise SystemExit(f"connect_race: the kernel kept accepting connections to {ip}:{port}")


def serve(directory):
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=directory, **k)
    http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def connect_ms(command):
    out = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise SystemExit(f"connect_race: {command[0]} failed ({out.returncode}): {out.stderr.strip()}")
    return float(out.stdout.strip()) * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sluice")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--connect-timeout", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "small.txt"), "w") as f:
            f.write("sluice\n")
        server = serve(directory)
        port = server.server_address[1]
        holes = [black_hole("::1", port), black_hole("127.0.0.3", port)]
        cases = {"family": f"race.test:{port}:[::1],127.0.0.1",
                 "same": f"race.test:{port}:127.0.0.3,127.0.0.1"}
        url = f"http://race.test:{port}/small.txt"
        common = ["-s", "-o", "/dev/null", "-w", "%{time_connect}",
                  "--connect-timeout", str(args.connect_timeout)]
        for case, resolve in cases.items():
            ours = [connect_ms([args.sluice, *common, "--resolve", resolve, url])
                    for _ in range(args.runs)]
            curls = [connect_ms(["curl", *common, "--resolve", resolve, url])
                     for _ in range(args.runs)]
            ours_ms, curl_ms = statistics.median(ours), statistics.median(curls)
            print(f"{case}_sluice_connect_ms {ours_ms:.1f}")
            print(f"{case}_curl_connect_ms {curl_ms:.1f}")
            print(f"{case}_ratio_vs_curl {ours_ms / curl_ms:.2f}")
        del holes
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
