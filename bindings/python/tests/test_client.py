"""The asyncio binding against the real servers (nginx, nghttpd) and small asyncio
servers of its own where a test needs exact bytes on the wire."""

import asyncio

import pytest

import sluice
from conftest import ENV, eventually, sha256, sha256_of

MARK = 256 * 1024


def run(coroutine):
    return asyncio.run(coroutine)


async def start_server(handler):
    """An asyncio HTTP/1.1 server on loopback; returns (server, base URL)."""
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}"


async def read_head(reader):
    lines = []
    while (line := await reader.readline()) not in (b"\r\n", b""):
        lines.append(line.decode("latin-1").rstrip("\r\n"))
    return lines


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
            assert response.headers.get_all("set-cookie") == ["a=1", "b=2"]
            assert ("X-Mixed-Case", "m") in response.headers
    run(main())


def test_a_request_body_streams_from_an_async_generator_with_backpressure():
    received = {}

    async def handle(reader, writer):
        await read_head(reader)
        body = b""
        while True:  # chunked: size line, data, CRLF, until the last chunk
            size = int((await reader.readline()).strip(), 16)
            if size == 0:
                await reader.readline()
                break
            body += await reader.readexactly(size)
            await reader.readexactly(2)
        received["body"] = body
        answer = sha256(body).encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(answer), answer))
        await writer.drain()
        writer.close()

    pieces = [bytes([i % 251]) * 100_000 for i in range(40)]  # 4 MB, far over the mark

    async def produce():
        for piece in pieces:
            yield piece

    async def main():
        server, base = await start_server(handle)
        async with server, sluice.Client() as client:
            response = await client.fetch(base + "/upload", method="POST", body=produce(), mark=65536)
            assert await response.text() == sha256(b"".join(pieces))
    run(main())
    assert len(received["body"]) == 4_000_000


def test_cancelling_the_task_before_the_head_cancels_the_request():
    arrived = None

    async def handle(reader, writer):
        await read_head(reader)
        arrived.set()
        await reader.read()  # never answers; returns when the client closes

    async def main():
        nonlocal arrived
        arrived = asyncio.Event()
        server, base = await start_server(handle)
        async with server, sluice.Client() as client:
            task = asyncio.create_task(client.fetch(base + "/never"))
            await arrived.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert await eventually(lambda: client.stats()["in_flight"] == 0)
    run(main())


def test_cancelling_mid_body_ends_the_request():
    async def handle(reader, writer):  # a body that stalls after its first bytes
        await read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n" + b"x" * 1000)
        await writer.drain()
        await reader.read()

    async def main():
        server, base = await start_server(handle)
        async with server, sluice.Client() as client:
            response = await client.fetch(base + "/stalls")
            first = asyncio.Event()

            async def read_all():
                async for _ in response.body:
                    first.set()

            reading = asyncio.create_task(read_all())
            await first.wait()  # now waiting for bytes that will not come
            reading.cancel()
            with pytest.raises(asyncio.CancelledError):
                await reading
            assert await eventually(lambda: client.stats()["in_flight"] == 0)
            with pytest.raises(sluice.CancelledError, match="reading task was cancelled"):
                await response.read()
    run(main())


def test_a_reader_that_stops_holds_the_stream_at_its_mark():
    async def main():
        async with sluice.Client() as client:
            response = await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/64m.bin", mark=MARK)
            assert await eventually(lambda: client.stats()["paused_receivers"] == 1), \
                "the unread body never paused its stream"
            stats = client.stats()
            # Python's side holds at most two blocks (it pauses once past one), the
            # library's side its mark plus a receive.
            assert response.body.buffered <= 2 * 65536
            assert stats["staged_bytes"] <= MARK + 65536
            assert sha256(await response.read()) == sha256_of("64m.bin")
    run(main())


def test_failures_raise_with_the_library_message():
    async def main():
        async with sluice.Client() as client:
            with pytest.raises(sluice.UsageError) as bad_url:
                await client.fetch("ftp://example.org/file")
            assert bad_url.value.name == "bad_url"
            with pytest.raises(sluice.ConnectError) as refused:
                await client.fetch("http://127.0.0.1:1/")
            assert "127.0.0.1" in str(refused.value)
            with pytest.raises(sluice.UsageError):
                await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/",
                                   headers={"X-Bad": "one\r\nInjected: yes"})
            with pytest.raises(sluice.HttpError) as redirected:
                await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/redirect", redirect="error")
            assert redirected.value.name == "redirect_refused"
    run(main())


def test_a_closed_client_raises_instead_of_crashing():
    async def main():
        client = sluice.Client()
        async with client:
            pass
        with pytest.raises(sluice.UsageError, match="closed"):
            await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt")
        with pytest.raises(sluice.UsageError):
            client.stats()
        client.close()  # twice is fine
    run(main())


def test_many_concurrent_fetches_in_one_loop():
    async def main():
        async with sluice.Client() as client:
            async def one():
                response = await client.fetch(ENV["SLUICE_NGHTTPD_H2C_URL"] + "/small.txt",
                                              version="2-prior-knowledge")
                return response.status, await response.read()
            results = await asyncio.gather(*(one() for _ in range(100)))
        assert all(status == 200 for status, _ in results)
        assert {sha256(body) for _, body in results} == {sha256_of("small.txt")}
    run(main())
