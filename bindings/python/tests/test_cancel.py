"""Cancellation through asyncio: a cancelled task cancels its request at any stage,
and closing the client ends everything of it with an exception, never a hang or a
crash."""

import asyncio

import pytest

import sluice
from conftest import ENV, eventually, never_answer, read_head, start_server


def run(coroutine):
    return asyncio.run(coroutine)


def test_cancelling_the_task_before_the_head_cancels_the_request():
    async def main():
        arrived = asyncio.Event()
        server, base = await start_server(never_answer(arrived))
        async with server, sluice.Client() as client:
            task = asyncio.create_task(client.fetch(base + "/never"))
            await arrived.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert await eventually(lambda: client.stats()["in_flight"] == 0)
    run(main())


def test_cancelling_the_reading_task_mid_body_ends_the_request():
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


def test_cancelling_the_task_mid_upload_stops_the_body_and_its_generator():
    async def main():
        arrived = asyncio.Event()
        sent_first, closed = asyncio.Event(), asyncio.Event()
        server, base = await start_server(never_answer(arrived))

        async def produce():
            try:
                yield b"first piece"
                sent_first.set()
                await asyncio.Event().wait()  # the rest never comes
                yield b"never"
            finally:
                closed.set()

        async with server, sluice.Client() as client:
            task = asyncio.create_task(client.fetch(base + "/upload", method="POST", body=produce()))
            await asyncio.gather(arrived.wait(), sent_first.wait())
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await closed.wait()  # the generator was closed, not left suspended
            assert await eventually(lambda: client.stats()["in_flight"] == 0)
    run(main())


def test_closing_the_client_ends_what_is_in_flight_with_cancelled_error():
    async def main():
        arrived = asyncio.Event()
        server, base = await start_server(never_answer(arrived))
        async with server:
            client = sluice.Client()
            async with client:
                waiting = asyncio.create_task(client.fetch(base + "/never"))
                await arrived.wait()
                # A body its reader stopped reading: paused, with a block in Python.
                held = await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/64m.bin")
                assert await eventually(lambda: client.stats()["paused_receivers"] == 1
                                        and held.body.buffered > 0)
                reading = await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/64m.bin")
                await reading.body.__anext__()
            with pytest.raises(sluice.CancelledError, match="client was destroyed"):
                await waiting
            for response in (held, reading):
                # What Python held, then the error; a deadline so that a body that
                # never ends fails the test instead of hanging it.
                got = await asyncio.wait_for(_drain_until_cancelled(response), 30)
                assert got < 64 * 2**20
                response.close()
            with pytest.raises(sluice.UsageError, match="response is closed"):
                await held.read()
    run(main())


async def _drain_until_cancelled(response):
    got = 0
    with pytest.raises(sluice.CancelledError):
        async for chunk in response.body:
            got += len(chunk)
    return got
