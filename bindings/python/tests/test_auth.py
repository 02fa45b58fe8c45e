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


def test_aws_sigv4_signs_each_request_as_an_independent_verifier_checks():
    # The CLI tests' verifier: a loopback server with its own SigV4 implementation.
    import pathlib
    import subprocess
    import tempfile
    import time
    peer = pathlib.Path(__file__).resolve().parents[3] / "tests" / "cli" / "aws_sigv4_peer.py"
    with tempfile.TemporaryDirectory() as scratch:
        port_file, log = pathlib.Path(scratch, "port"), pathlib.Path(scratch, "log")
        server = subprocess.Popen(["/usr/bin/python3", str(peer), str(port_file), str(log)])
        try:
            for _ in range(100):
                if port_file.exists():
                    break
                time.sleep(0.05)
            base = "http://127.0.0.1:" + port_file.read_text()
            keys = ("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")

            async def main():
                async with sluice.Client() as client:
                    signed = await client.fetch(base + "/bucket/key?b=2&a=1", method="PUT",
                                                body=b"hello",
                                                auth=sluice.AwsSigV4(*keys, "aws:amz:us-east-1:s3"))
                    assert (signed.status, await signed.read()) == (200, b"verified\n")
                    wrong = await client.fetch(base + "/x", auth=sluice.AwsSigV4(
                        keys[0], "wrong", "aws:amz:us-east-1:s3"))
                    await wrong.read()
                    assert wrong.status == 403
                    with pytest.raises(sluice.UsageError, match="--aws-sigv4"):
                        await client.fetch(base + "/x", auth=sluice.AwsSigV4(*keys, "aws:amz::s3"))
            run(main())
        finally:
            server.kill()
            server.wait()
