"""Failures raise sluice.Error subclasses by the code's category, with the library's
message; bad arguments and a closed client raise, never crash."""

import asyncio
import builtins

import pytest

import sluice
from conftest import ENV, never_answer, start_server


def run(coroutine):
    return asyncio.run(coroutine)


def test_failures_raise_by_category_with_the_library_message():
    async def main():
        async with sluice.Client() as client:
            with pytest.raises(sluice.UsageError) as bad_url:
                await client.fetch("ftp://example.org/file")
            assert (bad_url.value.name, bad_url.value.category) == ("bad_url", "usage")
            assert "ftp" in str(bad_url.value)

            with pytest.raises(sluice.ConnectError) as refused:
                await client.fetch("http://127.0.0.1:1/")
            assert "127.0.0.1" in str(refused.value)
            assert isinstance(refused.value, builtins.ConnectionError)

            with pytest.raises(sluice.HttpError) as redirected:
                await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/redirect", redirect="error")
            assert redirected.value.name == "redirect_refused"
    run(main())


def test_an_untrusted_certificate_is_a_tls_error():
    async def main():
        async with sluice.Client() as client:  # the system store: no test CA
            with pytest.raises(sluice.TlsError) as untrusted:
                await client.fetch(ENV["SLUICE_NGINX_H2_URL"] + "/small.txt")
            assert untrusted.value.category == "tls"
        async with sluice.Client(insecure=True) as client:
            response = await client.fetch(ENV["SLUICE_NGINX_H2_URL"] + "/small.txt")
            assert response.status == 200
            await response.read()
    run(main())


def test_a_server_that_never_answers_is_a_timeout_error():
    async def main():
        arrived = asyncio.Event()
        server, base = await start_server(never_answer(arrived))
        async with server, sluice.Client() as client:
            with pytest.raises(sluice.TimeoutError) as total:
                await client.fetch(base + "/", timeout=0.2)
            assert total.value.name == "total_timeout" and total.value.category == "timeout"
            assert isinstance(total.value, builtins.TimeoutError)
            with pytest.raises(sluice.TimeoutError) as first_byte:
                await client.fetch(base + "/", timeout={"first_byte": 0.2})
            assert first_byte.value.name == "first_byte_timeout"
            assert client.stats()["in_flight"] == 0
    run(main())


def test_bad_arguments_raise_value_errors():
    async def main():
        async with sluice.Client() as client:
            url = ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt"
            for headers in ({"X-Bad": "one\r\nInjected: yes"}, {"X-Bad": "one\nInjected: yes"},
                            {"Bad Name": "x"}, {"X-Nul": "a\0b"}):
                with pytest.raises(sluice.UsageError) as refused:
                    await client.fetch(url, headers=headers)
                assert isinstance(refused.value, ValueError) and str(refused.value)
            with pytest.raises(sluice.UsageError):
                await client.fetch(url, method="GET /x")
            with pytest.raises(sluice.UsageError, match="version"):
                await client.fetch(url, version="4")
            with pytest.raises(sluice.UsageError):
                await client.fetch(url, allowance=0)
            with pytest.raises(sluice.UsageError):
                await client.fetch(url, allowance=(128 * 1024, 64 * 1024))
            with pytest.raises(sluice.UsageError):
                await client.fetch(url, allowance="big")
            with pytest.raises(TypeError):
                await client.fetch(url, method="POST", body="text, not bytes")
            assert client.stats()["in_flight"] == 0
    run(main())


def test_a_closed_client_raises_instead_of_crashing():
    async def main():
        client = sluice.Client()
        async with client:
            pass
        with pytest.raises(sluice.UsageError, match="closed"):
            await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt")
        with pytest.raises(sluice.UsageError, match="closed"):
            client.stats()
        with pytest.raises(sluice.UsageError, match="closed"):
            async with client:
                pass
        client.close()  # twice is fine
    run(main())


def test_a_client_belongs_to_one_loop():
    client = sluice.Client()
    try:
        async def use():
            response = await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt")
            await response.read()
        run(use())
        with pytest.raises(sluice.UsageError, match="event loop"):
            run(use())
    finally:
        client.close()
