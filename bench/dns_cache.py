#!/usr/bin/env python3
"""Lookups made for 10,000 requests to 100 names, with the DNS cache and without.

The DNS cache's figure (bench/README.md). A small DNS server in this script answers nameN.test (N < names)
with 127.0.0.1 and a TTL of 300 s, and counts the questions it gets. One
sluice.Client, told to ask it (dns_servers=), fetches a small file from nginx
`--requests` times, round robin over the names, `--concurrency` at a time, each with
"Connection: close" so that every request opens a new connection and needs its name
again (pooled connections would hide the cache). The same run again with
dns_cache_ttl=0 is the comparison: every connection asks.

The peer a figure would want, curl, cannot be pointed at this server: Debian's curl
uses the threaded getaddrinfo resolver and refuses --dns-servers.

Usage (servers from tests/support/servers/start.sh, env file sourced):
  SLUICE_LIBRARY=build-release/libsluice.so PYTHONPATH=bindings/python \\
    /usr/bin/python3 bench/dns_cache.py [--requests 10000] [--names 100]
Prints `name value` lines."""

import argparse
import asyncio
import os
import socket
import struct
import threading
import time
from urllib.parse import urlsplit

import sluice


class DnsServer:
    """Answers A (127.0.0.1) and AAAA (none) for the names it knows; counts questions."""

    def __init__(self, names, ttl):
        self.names = set(names)
        self.ttl = ttl
        self.questions = 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.address = "127.0.0.1:%d" % self.sock.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            query, peer = self.sock.recvfrom(1500)
            at, labels = 12, []
            while query[at]:
                labels.append(query[at + 1:at + 1 + query[at]].decode().lower())
                at += 1 + query[at]
            qtype = struct.unpack("!H", query[at + 1:at + 3])[0]
            question = query[12:at + 5]
            self.questions += 1
            name = ".".join(labels)
            known = name in self.names
            answers = []
            if known and qtype == 1:
                answers.append(struct.pack("!HHHIH", 0xC00C, 1, 1, self.ttl, 4) + bytes([127, 0, 0, 1]))
            flags = 0x8180 | (0 if known else 3)
            header = struct.pack("!HHHHHH", struct.unpack("!H", query[:2])[0], flags, 1,
                                 len(answers), 0, 0)
            self.sock.sendto(header + question + b"".join(answers), peer)


async def fetch_all(client, urls, concurrency):
    queue = list(reversed(urls))

    async def worker():
        while queue:
            url = queue.pop()
            response = await client.fetch(url, headers={"Connection": "close"})
            await response.read()
            if response.status != 200:
                raise SystemExit(f"dns_cache: {url} answered {response.status}")

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def run(dns, urls, concurrency, cache_ttl):
    before = dns.questions
    started = time.perf_counter()
    async with sluice.Client(dns_servers=dns.address, dns_cache_ttl=cache_ttl) as client:
        await fetch_all(client, urls, concurrency)
        stats = client.stats()
    return dns.questions - before, stats, time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--names", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=20)
    args = parser.parse_args()
    port = urlsplit(os.environ["SLUICE_NGINX_HTTP_URL"]).port
    names = [f"name{i}.test" for i in range(args.names)]
    dns = DnsServer(names, ttl=300)
    urls = [f"http://{names[i % len(names)]}:{port}/small.txt" for i in range(args.requests)]
    cached, stats, seconds = asyncio.run(run(dns, urls, args.concurrency, None))
    print(f"requests {args.requests}")
    print(f"names {args.names}")
    print(f"dns_questions_with_cache {cached}")
    print(f"client_dns_queries_with_cache {stats['dns_queries']}")
    print(f"client_dns_cache_hits {stats['dns_cache_hits']}")
    print(f"seconds_with_cache {seconds:.2f}")
    uncached, stats, seconds = asyncio.run(run(dns, urls, args.concurrency, 0))
    print(f"dns_questions_without_cache {uncached}")
    print(f"client_dns_queries_without_cache {stats['dns_queries']}")
    print(f"seconds_without_cache {seconds:.2f}")
    print(f"questions_ratio_with_vs_without {cached / uncached:.4f}")


if __name__ == "__main__":
    main()
