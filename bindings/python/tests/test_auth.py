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


def test_digest_and_anyauth_answer_lighttpds_challenge():
    async def main():
        base = ENV["SLUICE_LIGHTTPD_URL"]
        user, password = ENV["SLUICE_DIGEST_USER"], ENV["SLUICE_DIGEST_PASSWORD"]
        async with sluice.Client() as client:
            for path in ("/digest-md5/small.txt", "/digest-sha256/small.txt"):
                response = await client.fetch(base + path, auth=sluice.DigestAuth(user, password))
                assert response.status == 200
                assert sha256(await response.read()) == sha256_of("small.txt")
            wrong = await client.fetch(base + "/digest-sha256/small.txt",
                                       auth=sluice.DigestAuth(user, "wrong"))
            await wrong.read()
            assert wrong.status == 401
            anyauth = await client.fetch(base + "/digest-both/small.txt",
                                         auth=sluice.AnyAuth(user, password))
            await anyauth.read()
            assert anyauth.status == 200
    run(main())


def test_netrc_file_gives_the_credentials(tmp_path):
    async def main():
        netrc = tmp_path / "netrc"
        netrc.write_text("machine 127.0.0.1\n  login %s\n  password \"%s\"\n"
                         % (ENV["SLUICE_AUTH_USER"], ENV["SLUICE_AUTH_PASSWORD"]))
        async with sluice.Client(netrc="required", netrc_file=netrc) as client:
            response = await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/auth/small.txt")
            await response.read()
            assert response.status == 200
        netrc.write_text("machine 127.0.0.1 login\n")
        with pytest.raises(sluice.UsageError, match=r"netrc: .*netrc:1: 'login' needs a value"):
            sluice.Client(netrc="optional", netrc_file=netrc)
    run(main())
