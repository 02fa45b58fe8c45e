"""The real servers' addresses for the binding's tests, from the fixture's env file
($SLUICE_TEST_ENV/env, written by tests/support/servers/start.sh), and small helpers."""

import asyncio
import hashlib
import os
import pathlib

import pytest


def _read_env():
    root = os.environ.get("SLUICE_TEST_ENV")
    if not root:
        pytest.exit("SLUICE_TEST_ENV is not set: start the servers with "
                    "tests/support/servers/start.sh DIR and point it at DIR/test-env", 2)
    values = {}
    for line in pathlib.Path(root, "env").read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip().strip('"')
    return values


ENV = _read_env()


def sha256_of(name):
    """The served file's SHA-256, from the fixture's sha256sums."""
    sums = pathlib.Path(ENV["SLUICE_FILES_DIR"], "sha256sums").read_text().splitlines()
    for line in sums:
        digest, file = line.split()
        if file.lstrip("*") == name:
            return digest
    raise KeyError(name)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


async def eventually(condition, deadline=30.0):
    """Waits, letting the loop run, until `condition()` holds; False after `deadline`
    seconds. For states the library reports without a callback (stats)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    while not condition():
        if loop.time() > end:
            return False
        await asyncio.sleep(0.005)
    return True


def rss_bytes():
    """This process's resident set size now."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def start_server(handler):
    """An asyncio HTTP/1.1 server on loopback, for exact bytes on the wire; returns
    (server, base URL)."""
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}"


async def read_head(reader):
    """The request line and header lines of one request, without CRLFs."""
    lines = []
    while (line := await reader.readline()) not in (b"\r\n", b""):
        lines.append(line.decode("latin-1").rstrip("\r\n"))
    return lines


def never_answer(arrived):
    """A handler that reads a request head, sets `arrived` and never answers (it
    returns when the client closes the connection)."""
    async def handle(reader, writer):
        await read_head(reader)
        arrived.set()
        await reader.read()
        writer.close()
    return handle
