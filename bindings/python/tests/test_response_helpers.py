"""Response.json(), Response.raise_for_status() and fetch's params=, against nginx and a
server that answers with exactly what it was asked."""

import asyncio
import json

import pytest

import sluice
from conftest import ENV, read_head, start_server


def run(coroutine):
    return asyncio.run(coroutine)


def answer(status, body, content_type="application/json"):
    """A handler that answers every request with `status` and `body` (bytes, or a
    function of the request target)."""
    async def handle(reader, writer):
        target = (await read_head(reader))[0].split()[1]
        data = body(target) if callable(body) else body
        writer.write(f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\n"
                     f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        await writer.drain()
        writer.close()
    return handle


def echo_target(target):
    return json.dumps({"target": target}).encode()


def test_json_parses_the_body():
    document = {"name": "sluice", "versions": [1.1, 2, 3], "nested": {"ok": True, "none": None}}

    async def main():
        server, base = await start_server(answer(200, json.dumps(document).encode("utf-16")))
        async with server, sluice.Client() as client:
            response = await client.fetch(base + "/")
            return await response.json()
    assert run(main()) == document  # UTF-16 too: json.loads tells the encoding from the bytes


def test_json_of_a_body_that_is_not_json_raises_value_error():
    async def main():
        async with sluice.Client() as client:
            response = await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt")
            with pytest.raises(ValueError):
                await response.json()
    run(main())


def test_json_takes_another_loads():
    async def main():
        server, base = await start_server(answer(200, b'{"price": 1.10}'))
        async with server, sluice.Client() as client:
            response = await client.fetch(base + "/")
            return await response.json(loads=lambda data: json.loads(data, parse_float=str))
    assert run(main()) == {"price": "1.10"}


def test_raise_for_status_on_a_404_carries_status_and_a_readable_response():
    async def main():
        url = ENV["SLUICE_NGINX_HTTP_URL"] + "/no-such-file"
        async with sluice.Client() as client:
            response = await client.fetch(url)
            assert not response.ok
            with pytest.raises(sluice.HTTPStatusError) as raised:
                response.raise_for_status()
            error = raised.value
            assert (error.status, error.response, error.code, error.name) == (
                404, response, 1100, "http_status")
            assert str(error).startswith(f"HTTP status 404 Not Found for {url}")
            assert isinstance(error, sluice.HttpError) and isinstance(error, sluice.Error)
            assert b"404" in await error.response.read()  # nginx's error page
    run(main())


def test_raise_for_status_on_a_5xx():
    async def main():
        server, base = await start_server(answer(503, b"{}"))
        async with server, sluice.Client() as client:
            response = await client.fetch(base + "/")
            with pytest.raises(sluice.HTTPStatusError) as raised:
                response.raise_for_status()
            assert raised.value.status == 503
            await response.read()
    run(main())


def test_raise_for_status_passes_success_and_redirects_through():
    async def main():
        base = ENV["SLUICE_NGINX_HTTP_URL"]
        async with sluice.Client() as client:
            ok = await client.fetch(base + "/small.txt")
            assert ok.ok and ok.raise_for_status() is ok
            await ok.read()
            redirect = await client.fetch(base + "/redirect")  # manual: the 302 itself
            assert redirect.raise_for_status() is redirect
            await redirect.read()
    run(main())


@pytest.mark.parametrize("url, params, target", [
    ("/search", {"q": "a b&c=d", "n": 10}, "/search?q=a+b%26c%3Dd&n=10"),
    ("/search", [("tag", "x"), ("tag", "y/z")], "/search?tag=x&tag=y%2Fz"),
    ("/search", {"tag": ["x", "y"], "skip": None, "on": True}, "/search?tag=x&tag=y&on=true"),
    ("/search?page=2", {"q": "é"}, "/search?page=2&q=%C3%A9"),
    ("/search?", {"q": "1"}, "/search?q=1"),
    ("/search", {}, "/search"),
])
def test_params_are_encoded_after_the_url_s_own_query(url, params, target):
    async def main():
        server, base = await start_server(answer(200, echo_target))
        async with server, sluice.Client() as client:
            response = await client.fetch(base + url, params=params)
            return (await response.json())["target"]
    assert run(main()) == target


def test_params_go_before_a_fragment_which_is_not_sent():
    async def main():
        server, base = await start_server(answer(200, echo_target))
        async with server, sluice.Client() as client:
            response = await client.fetch(base + "/page#part", params={"a": "1"})
            return (await response.json())["target"]
    assert run(main()) == "/page?a=1"


def test_params_of_the_wrong_type_are_type_errors():
    async def main():
        async with sluice.Client() as client:
            with pytest.raises(TypeError):
                await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/", params={"a": object()})
            with pytest.raises(TypeError):
                await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/", params=[(1, "a")])
    run(main())
