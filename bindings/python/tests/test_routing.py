"""Where connections go, through the binding: a Unix socket (nginx listens on one),
--resolve and --connect-to entries, -6 refusing an IPv4 server, and a malformed entry
refused when the Client is made."""

import asyncio
from urllib.parse import urlsplit

import pytest

import sluice
from conftest import ENV, sha256, sha256_of


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_unix_socket_carries_the_requests():
    async def main():
        async with sluice.Client(unix_socket=ENV["SLUICE_NGINX_UNIX_SOCKET"]) as client:
            response = await client.fetch("http://localhost/small.txt")
            assert response.status == 200
            assert sha256(await response.read()) == sha256_of("small.txt")
    run(main())


def test_resolve_and_connect_to_route_by_name():
    async def main():
        port = urlsplit(ENV["SLUICE_NGINX_HTTP_URL"]).port
        https_port = urlsplit(ENV["SLUICE_NGINX_HTTPS_URL"]).port
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"],
                                 resolve=[f"files.test:{port}:127.0.0.1"],
                                 connect_to=[f"localhost:1:127.0.0.1:{https_port}"]) as client:
            named = await client.fetch(f"http://files.test:{port}/small.txt")
            assert sha256(await named.read()) == sha256_of("small.txt")
            assert named.remote_address == ("127.0.0.1", port)
            moved = await client.fetch("https://localhost:1/small.txt")
            assert sha256(await moved.read()) == sha256_of("small.txt")
            assert moved.remote_address[1] == https_port
    run(main())


def test_ipv6_only_refuses_an_ipv4_server():
    async def main():
        async with sluice.Client(ip_version=6) as client:
            with pytest.raises(sluice.DnsError, match="only IPv6 is allowed"):
                await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt")
    run(main())


def test_a_malformed_resolve_entry_is_refused_by_the_client():
    with pytest.raises(sluice.UsageError, match="missing a part"):
        sluice.Client(resolve=["example.org:443"])


def test_connections_leave_from_the_interface_and_port_range():
    async def main():
        async with sluice.Client(interface="lo", local_port=(46000, 46099)) as client:
            response = await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt")
            await response.read()
            ip, port = response.local_address
            assert ip == "127.0.0.1"
            assert 46000 <= port <= 46099
    run(main())


def test_a_missing_interface_or_a_bad_port_range_is_refused():
    with pytest.raises(sluice.Error, match="no network interface named nosuch0"):
        sluice.Client(interface="nosuch0")
    with pytest.raises(sluice.UsageError, match="local_port"):
        sluice.Client(local_port=(2, 1))
