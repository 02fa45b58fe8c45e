"""The cookie engine through the binding: nginx's /cookies/set sets cookies on a 302
to /cookies/echo, which answers with the Cookie header it got; the jar is saved in
curl's format and read back."""

import asyncio

import pytest

import sluice
from conftest import ENV


def run(coroutine):
    return asyncio.run(coroutine)


def test_cookies_cross_a_redirect_and_survive_a_file(tmp_path):
    async def main():
        base = ENV["SLUICE_NGINX_HTTP_URL"]
        jar = sluice.CookieJar()
        async with sluice.Client(cookie_jar=jar) as client:
            response = await client.fetch(base + "/cookies/set", redirect="follow")
            # The Secure one too: http on a loopback name counts as secure, as in curl.
            assert await response.read() == b"cookie=[sid=abc123; sec=1]\n"
        assert len(jar) == 2
        assert jar.header(base + "/cookies/x") == "sid=abc123; sec=1"
        path = tmp_path / "jar.txt"
        jar.save(path)
        assert "#HttpOnly_127.0.0.1\tFALSE\t/cookies\tFALSE\t0\tsid\tabc123" in path.read_text()
        again = sluice.CookieJar(path)
        async with sluice.Client(cookie_jar=again) as client:
            response = await client.fetch(base + "/cookies/echo")
            assert await response.read() == b"cookie=[sid=abc123; sec=1]\n"
        assert len(sluice.CookieJar(path, drop_session=True)) == 0
    run(main())


def test_bad_paths_raise():
    jar = sluice.CookieJar(missing_ok := "/nonexistent/sluice/cookies.txt")
    assert len(jar) == 0
    with pytest.raises(sluice.LocalIOError, match="cookies.txt"):
        jar.load(missing_ok)
    with pytest.raises(sluice.UsageError):
        jar.header("not a url")


def test_a_cookie_file_is_read_and_written_back_on_close(tmp_path):
    async def main():
        base = ENV["SLUICE_NGINX_HTTP_URL"]
        path = tmp_path / "cookies.txt"
        async with sluice.Client(cookie_file=path) as client:  # not there yet: no cookies
            response = await client.fetch(base + "/cookies/echo")
            assert await response.read() == b"cookie=[]\n"
            response = await client.fetch(base + "/cookies/set", redirect="follow")
            assert await response.read() == b"cookie=[sid=abc123; sec=1]\n"
            assert not path.exists()  # written when the client closes
        assert "\tsid\tabc123" in path.read_text()
        async with sluice.Client(cookie_file=path) as client:
            response = await client.fetch(base + "/cookies/echo")
            assert await response.read() == b"cookie=[sid=abc123; sec=1]\n"
        with pytest.raises(sluice.UsageError, match="cookie_file"):
            sluice.Client(cookie_file=path, cookie_jar=sluice.CookieJar())
    run(main())
