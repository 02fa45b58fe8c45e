"""Authentication through the binding: Basic and Bearer against nginx's /auth/ and
/bearer/ locations, and a user name Basic cannot carry refused."""

import asyncio

import pytest

import sluice
from conftest import ENV, sha256, sha256_of


def run(coroutine):
    return asyncio.run(coroutine)


def test_basic_and_bearer_open_their_locations():
    async def main():
        base = ENV["SLUICE_NGINX_HTTP_URL"]
        async with sluice.Client() as client:
            denied = await client.fetch(base + "/auth/small.txt")
            await denied.read()
            assert denied.status == 401
            basic = await client.fetch(base + "/auth/small.txt",
                                       auth=(ENV["SLUICE_AUTH_USER"], ENV["SLUICE_AUTH_PASSWORD"]))
            assert basic.status == 200
            assert sha256(await basic.read()) == sha256_of("small.txt")
            bearer = await client.fetch(base + "/bearer/small.txt", auth=ENV["SLUICE_AUTH_TOKEN"])
            await bearer.read()
            assert bearer.status == 200
    run(main())


def test_a_user_with_a_colon_is_refused():
    async def main():
        async with sluice.Client() as client:
            with pytest.raises(sluice.UsageError, match="contains ':'"):
                await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/auth/small.txt",
                                   auth=("a:b", "c"))
    run(main())
