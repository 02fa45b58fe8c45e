#!/usr/bin/env python3
"""Figures for the Python binding, each beside a peer in the same run:

  throughput  a large file through `async for chunk in response.body`, against the
              C++ API on the same file (`sluice-bench throughput`, one run each,
              alternated), over h1 (nginx plain) and h2 (nginx TLS);
  many        N concurrent fetches of a small file in one asyncio loop through one
              client, against aiohttp (Debian's python3-aiohttp) on the same URL:
              requests/s and peak RSS, each in a child process of its own;
  held        N large responses held unread by Python readers: RSS per held
              response, against `sluice-bench held` (the C++ API) on the same URL.

Usage (servers from tests/support/servers/start.sh, env file sourced):
  SLUICE_LIBRARY=build-release/libsluice.so PYTHONPATH=bindings/python \\
    /usr/bin/python3 bench/python_binding.py throughput [--file 1g.bin] [--runs 3]
  ... bench/python_binding.py many [--count 1000] [--runs 3]
"""

import argparse
import asyncio
import os
import subprocess
import sys
import time

SLUICE_BENCH = os.environ.get("SLUICE_BENCH_BIN", "build-release/bin/sluice-bench")


def env(key):
    value = os.environ.get(key)
    if not value:
        sys.exit(f"python_binding: {key} is not set (source the servers' test-env/env)")
    return value


# --- children: each measurement runs in a process of its own, so RSS is its own ---

async def binding_throughput(url, version, ca):
    import sluice
    async with sluice.Client(ca_file=ca) as client:
        start = time.perf_counter()
        response = await client.fetch(url, version=version)
        size = 0
        async for chunk in response.body:
            size += len(chunk)
        return size, time.perf_counter() - start


async def binding_many(url, count, connections):
    import sluice
    async with sluice.Client(max_connections_per_origin=connections) as client:
        async def one():
            response = await client.fetch(url)
            return len(await response.read())
        start = time.perf_counter()
        sizes = await asyncio.gather(*(one() for _ in range(count)))
        return sum(sizes), time.perf_counter() - start


async def aiohttp_many(url, count, connections):
    import aiohttp
    connector = aiohttp.TCPConnector(limit=connections)
    async with aiohttp.ClientSession(connector=connector) as session:
        async def one():
            async with session.get(url) as response:
                return len(await response.read())
        start = time.perf_counter()
        sizes = await asyncio.gather(*(one() for _ in range(count)))
        return sum(sizes), time.perf_counter() - start


def rss_mib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def binding_held(url, count):
    """RSS added per response held unread, once every stream has paused."""
    import sluice
    # One HTTP/1.1 connection per held response, as sluice-bench held opens.
    async with sluice.Client(max_connections_per_origin=count) as client:
        warm = await client.fetch(url.rsplit("/", 1)[0] + "/small.txt")
        await warm.read()
        before = rss_mib()
        held = await asyncio.gather(*(client.fetch(url) for _ in range(count)))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while client.stats()["paused_receivers"] < count:
            if loop.time() > deadline:
                sys.exit("python_binding: the held responses never all paused")
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.5)  # let the library's sweep and Python's buffers settle
        grown = rss_mib() - before
        for response in held:
            response.close()
        return int(grown * 1024 * 1024), 0.0


def child(argv):
    kind = argv[0]
    if kind == "binding-throughput":
        size, seconds = asyncio.run(binding_throughput(argv[1], argv[2], argv[3] or None))
    elif kind == "binding-held":
        size, seconds = asyncio.run(binding_held(argv[1], int(argv[2])))
    elif kind == "binding-many":
        size, seconds = asyncio.run(binding_many(argv[1], int(argv[2]), int(argv[3])))
    else:
        size, seconds = asyncio.run(aiohttp_many(argv[1], int(argv[2]), int(argv[3])))
    print(size, seconds)


def run_child(*argv):
    """Runs a child measurement; returns (bytes, seconds, cpu seconds, peak RSS MiB)."""
    process = subprocess.Popen([sys.executable, __file__, "--child", *argv], stdout=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    out = process.stdout.read().decode().split()
    if status != 0 or len(out) != 2:
        sys.exit(f"python_binding: child {argv} failed (status {status})")
    return int(out[0]), float(out[1]), usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def cxx_throughput(url, version_flag, ca):
    command = [SLUICE_BENCH, "throughput", "--url", url, "--runs", "1"]
    if version_flag:
        command.append(version_flag)
    if ca:
        command += ["--cacert", ca]
    out = subprocess.run(command, capture_output=True, text=True)
    for line in out.stdout.splitlines():
        if line.startswith("throughput_mib_s "):
            return float(line.split()[1])
    sys.exit(f"python_binding: {' '.join(command)} printed no throughput:\n{out.stdout}{out.stderr}")


def throughput(args):
    cases = [("h1 plain, nginx", env("SLUICE_NGINX_HTTP_URL"), "auto", "", ""),
             ("h2 TLS, nginx", env("SLUICE_NGINX_H2_URL"), "2", "--http2", env("SLUICE_TEST_CA"))]
    for name, base, version, flag, ca in cases:
        url = f"{base}/{args.file}"
        for run in range(1, args.runs + 1):
            size, seconds, cpu, rss = run_child("binding-throughput", url, version, ca)
            binding = size / seconds / 2**20
            cxx = cxx_throughput(url, flag, ca)
            print(f"throughput {name} run {run}: binding {binding:8.1f} MiB/s "
                  f"({cpu / (size / 2**30):.2f} CPU s/GiB, peak {rss:.1f} MiB), "
                  f"C++ API {cxx:8.1f} MiB/s, ratio {binding / cxx:.2f}")


def many(args):
    url = f"{env('SLUICE_NGINX_HTTP_URL')}/small.txt"
    for run in range(1, args.runs + 1):
        _, seconds, cpu, rss = run_child("binding-many", url, str(args.count), str(args.connections))
        _, peer_seconds, peer_cpu, peer_rss = run_child("aiohttp-many", url, str(args.count),
                                                        str(args.connections))
        ours, theirs = args.count / seconds, args.count / peer_seconds
        print(f"many run {run}: {args.count} fetches, {args.connections} connections: "
              f"binding {ours:8.0f} req/s ({cpu / args.count * 1000:.2f} ms CPU/request, peak {rss:.1f} MiB), "
              f"aiohttp {theirs:8.0f} req/s ({peer_cpu / args.count * 1000:.2f} ms, peak {peer_rss:.1f} MiB), "
              f"ratio {ours / theirs:.2f}")


def held(args):
    url = f"{env('SLUICE_NGINX_HTTP_URL')}/64m.bin"
    for run in range(1, args.runs + 1):
        grown, _, _, _ = run_child("binding-held", url, str(args.count))
        out = subprocess.run([SLUICE_BENCH, "held", "--url", url, "--count", str(args.count)],
                             capture_output=True, text=True).stdout
        cxx = next((float(line.split()[1]) for line in out.splitlines()
                    if line.startswith("held_rss_mib_per_response ")), float("nan"))
        ours = grown / args.count / 2**20
        print(f"held run {run}: {args.count} responses of 64m.bin unread (mark 256 KiB): "
              f"binding {ours:.3f} MiB each, C++ API {cxx:.3f} MiB each, ratio {ours / cxx:.2f}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["throughput", "many", "held"])
    parser.add_argument("--file", default="1g.bin")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--count", type=int, default=1000,
                        help="many: fetches (1000); held: responses held (use 32)")
    parser.add_argument("--connections", type=int, default=100,
                        help="connections per origin for both (aiohttp's default limit)")
    args = parser.parse_args()
    {"throughput": throughput, "many": many, "held": held}[args.what](args)


if __name__ == "__main__":
    main()
