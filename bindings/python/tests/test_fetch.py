"""Fetching over h1 and h2: bodies byte for byte, header fields exactly as sent,
redirects, many fetches at once in one loop."""

import asyncio

import pytest

import sluice
from conftest import ENV, read_head, sha256, sha256_of, start_server


def run(coroutine):
    return asyncio.run(coroutine)


@pytest.mark.parametrize("url_key, version, expected", [
    ("SLUICE_NGINX_HTTP_URL", "auto", "1.1"),
    ("SLUICE_NGINX_H2_URL", "2", "2"),
    ("SLUICE_NGHTTPD_H2C_URL", "2-prior-knowledge", "2"),
])
def test_a_file_arrives_byte_for_byte(url_key, version, expected):
    async def main():
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"]) as client:
            response = await client.fetch(ENV[url_key] + "/1m.bin", version=version)
            assert response.status == 200
            assert response.http_version == expected
            assert response.headers.get("Content-Length") == "1048576"
            assert sha256(await response.read()) == sha256_of("1m.bin")
    run(main())


def test_headers_keep_order_repeats_and_names_as_sent():
    async def handle(reader, writer):
        head = await read_head(reader)
        echoed = ";".join(line for line in head[1:] if line.startswith("X-"))
        writer.write(b"HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nX-Mixed-Case: m\r\nSet-Cookie: b=2\r\n"
                     + f"Content-Length: {len(echoed)}\r\n\r\n{echoed}".encode())
        await writer.drain()
        writer.close()

    async def main():
        server, base = await start_server(handle)
        async with server, sluice.Client() as client:
            response = await client.fetch(base + "/", headers=[("X-One", "1"), ("X-Two", "2"),
                                                                ("X-One", "again")])
            assert await response.text() == "X-One: 1;X-Two: 2;X-One: again"
            assert response.headers[:3] == [("Set-Cookie", "a=1"), ("X-Mixed-Case", "m"),
                                            ("Set-Cookie", "b=2")]
            assert response.headers.get("x-mixed-case") == "m"
            assert response.headers.get_all("set-cookie") == ["a=1", "b=2"]
            assert response.headers.get("X-Absent", "none") == "none"

            response = await client.fetch(base + "/", headers={"X-Dict": "d"})
            assert await response.text() == "X-Dict: d"
    run(main())


def test_a_followed_redirect_says_where_it_ended():
    async def main():
        base = ENV["SLUICE_NGINX_HTTP_URL"]
        async with sluice.Client() as client:
            response = await client.fetch(base + "/redirect-chain/3", redirect="follow")
            assert (response.status, response.redirected, response.url) == (
                200, True, base + "/small.txt")
            assert response.connects == 1  # every hop used the connection the first opened
            assert sha256(await response.read()) == sha256_of("small.txt")

            manual = await client.fetch(base + "/redirect")  # the default: the 3xx itself
            assert (manual.status, manual.redirected, manual.url) == (302, False, base + "/redirect")
            assert manual.connects == 0  # the Client's open connection was reused
            assert manual.headers.get("location").endswith("/small.txt")
            await manual.read()
    run(main())


@pytest.mark.parametrize("url_key, version", [
    ("SLUICE_NGINX_HTTP_URL", "auto"),
    ("SLUICE_NGHTTPD_H2C_URL", "2-prior-knowledge"),
])
def test_a_hundred_concurrent_fetches_in_one_loop(url_key, version):
    async def main():
        async with sluice.Client() as client:
            async def one():
                response = await client.fetch(ENV[url_key] + "/small.txt", version=version)
                return response.status, await response.read()
            results = await asyncio.gather(*(one() for _ in range(100)))
            assert client.stats()["in_flight"] == 0
        assert [status for status, _ in results] == [200] * 100
        assert {sha256(body) for _, body in results} == {sha256_of("small.txt")}
    run(main())


def test_timing_and_remote_address_say_how_a_response_came():
    async def main():
        url = ENV["SLUICE_NGINX_HTTPS_URL"] + "/1m.bin"
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"]) as client:
            first = await client.fetch(url)
            assert first.timing["response_end"] is None  # the body is under way
            await first.read()
            timing = first.timing
            assert not timing.pop("connection_reused")
            steps = list(timing.values())
            assert None not in steps, timing  # a new TLS connection: every step happened
            assert steps == sorted(steps), timing
            ip, port = first.remote_address
            assert ip == "127.0.0.1" and f":{port}/" in url

            second = await client.fetch(url)
            await second.read()
            timing = second.timing
            assert timing["connection_reused"]
            assert timing["dns_start"] is None and timing["tls_end"] is None
            assert timing["request_start"] <= timing["response_start"] <= timing["response_end"]
    run(main())
