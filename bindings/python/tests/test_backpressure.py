"""A Python reader that stops reading holds its stream at its allowance, as a C++ reader
does: the library stops taking bytes for it (paused_receivers), Python holds at most
its one block, and memory stays flat while other traffic flows."""

import asyncio
import os

import pytest

import sluice
from conftest import ENV, eventually, rss_bytes, sha256, sha256_of

MARK = 256 * 1024
BLOCK = 64 * 1024  # the most Python takes before it pauses delivery
HELD = 4
# In the ASan build's ctest, python runs with libasan preloaded: freed memory waits in
# its quarantine and every allocation carries redzones, so RSS measures the sanitizer.
# There the bound on RSS is left out; the library's own figures are checked anyway.
RSS_MEANS_WHAT_WE_HOLD = "libasan" not in os.environ.get("LD_PRELOAD", "")


@pytest.mark.parametrize("url_key, version", [
    ("SLUICE_NGINX_HTTP_URL", "auto"),
    ("SLUICE_NGINX_H2_URL", "2"),
])
def test_readers_that_stop_hold_their_streams_at_their_allowance(url_key, version):
    base = ENV[url_key]

    async def fetch_whole(client, name):
        response = await client.fetch(f"{base}/{name}", version=version)
        return await response.read()

    async def main():
        # One connection more than held responses, for the traffic that runs past them.
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"],
                                 max_connections_per_origin=HELD + 1) as client:
            await fetch_whole(client, "1m.bin")  # connection, TLS and pools set up
            before = rss_bytes()
            held = [await client.fetch(f"{base}/64m.bin", version=version, allowance=MARK)
                    for _ in range(HELD)]
            # Paused in the library, and Python's block delivered to each reader.
            assert await eventually(lambda: client.stats()["paused_receivers"] == HELD
                                    and all(r.body.buffered > 0 for r in held)), \
                f"the unread bodies never all paused: {client.stats()}"

            for _ in range(10):  # the loop dispatches for others: the held ones stay put
                assert sha256(await fetch_whole(client, "1m.bin")) == sha256_of("1m.bin")

            stats = client.stats()
            assert stats["paused_receivers"] == HELD
            assert stats["staged_bytes"] <= HELD * (MARK + BLOCK), stats
            for response in held:
                assert 0 < response.body.buffered <= 2 * BLOCK
            # 256 MiB of bodies wait unread; what they cost is bounded by their allowances.
            if RSS_MEANS_WHAT_WE_HOLD:
                assert rss_bytes() - before < 32 * 2**20

            assert sha256(await held[0].read()) == sha256_of("64m.bin")  # resumes whole
            for response in held[1:]:
                response.close()
            assert await eventually(lambda: client.stats()["in_flight"] == 0)
    asyncio.run(main())
