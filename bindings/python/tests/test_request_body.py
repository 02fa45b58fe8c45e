"""Request bodies: bytes, and async iterators streamed through a body writer whose
backpressure waits on the loop (a writable callback), never blocking it."""

import asyncio

import sluice
from conftest import read_head, sha256, start_server


def run(coroutine):
    return asyncio.run(coroutine)


async def read_body(reader, head):
    """The request body after `head`: Content-Length or chunked."""
    fields = {line.split(":", 1)[0].lower(): line.split(":", 1)[1].strip() for line in head[1:]}
    if "content-length" in fields:
        return await reader.readexactly(int(fields["content-length"]))
    assert fields.get("transfer-encoding") == "chunked"
    body = bytearray()
    while (size := int((await reader.readline()).strip(), 16)) != 0:
        body += await reader.readexactly(size)
        await reader.readexactly(2)
    await reader.readline()
    return bytes(body)


def digest_server(received):
    """Answers each request with the SHA-256 of its body (kept in `received`)."""
    async def handle(reader, writer):
        head = await read_head(reader)
        body = await read_body(reader, head)
        received.append((head, body))
        answer = sha256(body).encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(answer), answer))
        await writer.drain()
        writer.close()
    return handle


def test_a_bytes_body_goes_with_its_length():
    received = []

    async def main():
        server, base = await start_server(digest_server(received))
        async with server, sluice.Client() as client:
            response = await client.fetch(base + "/bytes", method="PUT", body=b"hello, sluice")
            assert await response.text() == sha256(b"hello, sluice")
    run(main())
    head, body = received[0]
    assert head[0] == "PUT /bytes HTTP/1.1"
    assert "Content-Length: 13" in head and body == b"hello, sluice"


def test_an_async_generator_body_streams_with_backpressure():
    received = []
    pieces = [bytes([i % 251]) * 100_000 for i in range(40)]  # 4 MB, far over the upload buffer

    async def produce():
        for piece in pieces:
            yield piece

    async def main():
        server, base = await start_server(digest_server(received))
        async with server, sluice.Client() as client:
            response = await client.fetch(base + "/upload", method="POST", body=produce(), upload_buffer=65536)
            assert await response.text() == sha256(b"".join(pieces))
            assert client.stats()["request_body_bytes_held"] == 0
    run(main())
    assert len(received[0][1]) == 4_000_000


def test_a_full_writer_waits_on_the_loop_until_the_server_reads(monkeypatch):
    """The server reads nothing until the binding's writer is full and waits for its
    writable callback: the wait must leave the loop running (the server runs on it),
    and the body arrive whole once the server reads."""
    writer_full = None
    waits = []
    when_writable = sluice._capi.writer_when_writable

    def counting_when_writable(*args):
        waits.append(1)
        writer_full.set()
        return when_writable(*args)

    monkeypatch.setattr(sluice._capi, "writer_when_writable", counting_when_writable)
    piece, count = 256 * 1024, 128  # 32 MiB: more than loopback's socket buffers take
    received = []

    async def handle(reader, writer):
        head = await read_head(reader)
        await writer_full.wait()
        body = await read_body(reader, head)
        received.append(len(body))
        answer = sha256(body).encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(answer), answer))
        await writer.drain()
        writer.close()

    async def produce():
        try:
            for i in range(count):
                yield bytes([i]) * piece
        finally:
            writer_full.set()  # so a failure here cannot leave the server waiting

    async def main():
        nonlocal writer_full
        writer_full = asyncio.Event()
        server, base = await start_server(handle)
        async with server, sluice.Client() as client:
            response = await client.fetch(base + "/slow", method="POST", body=produce(), upload_buffer=65536)
            expected = sha256(b"".join(bytes([i]) * piece for i in range(count)))
            assert await response.text() == expected
    run(main())
    assert received == [piece * count]
    assert waits, "the writer never filled: the test did not exercise backpressure"
