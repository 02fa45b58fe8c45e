"""Client options by name: every option of the library's table is a keyword argument
of Client, its value checked by kind; a real server sees what the options set."""

import asyncio
import datetime

import pytest

import sluice
from conftest import read_head, start_server


def run(coroutine):
    return asyncio.run(coroutine)


def test_the_table_names_every_one_value_option_with_its_help():
    options = sluice.client_options()
    for name in ("ca_file", "user_agent", "resolve", "pool_idle_timeout", "dns_cache_ttl",
                 "max_connections_per_origin", "staged_bytes_budget", "file_threads"):
        assert name in options, name
        assert len(options[name]) > 10, name


def test_options_of_every_kind_reach_the_request():
    async def handle(reader, writer):
        head = await read_head(reader)
        agent = next(line for line in head if line.lower().startswith("user-agent:"))
        writer.write(f"HTTP/1.1 200 OK\r\nContent-Length: {len(agent)}\r\n\r\n{agent}".encode())
        await writer.drain()
        writer.close()

    async def main():
        server, base = await start_server(handle)
        port = base.rsplit(":", 1)[1].rstrip("/")
        async with server, sluice.Client(
                user_agent="options-test/1",                      # text
                resolve=[f"options.test:{port}:127.0.0.1"],       # list of texts
                insecure=False,                                   # flag
                max_connections_per_origin=2,                     # count
                pool_idle_timeout=datetime.timedelta(seconds=5),  # milliseconds
                dns_timeout=2.5,                                  # milliseconds from seconds
                dns_cache_ttl=30) as client:                      # seconds
            response = await client.fetch(f"http://options.test:{port}/")
            assert await response.text() == "User-Agent: options-test/1"
    run(main())


@pytest.mark.parametrize("options, words", [
    ({"resolve": "example.org:443:127.0.0.1"}, "a list of entries"),
    ({"max_connections_per_origin": -1}, "a non-negative int"),
    ({"max_connections_per_origin": 0}, "at least 1"),
    ({"pool_idle_timeout": "soon"}, "seconds"),
    ({"dns_cache_ttl": 2**33}, "at most"),
    ({"user_agent": "a\r\nX-Injected: 1"}, "user_agent"),
    ({"tls": {"no_such_option": 1}}, "unknown TLS option"),
])
def test_a_bad_value_is_a_usage_error_that_names_the_option(options, words):
    with pytest.raises(sluice.UsageError) as raised:
        sluice.Client(**options)
    assert words in str(raised.value)


def test_an_unknown_option_is_a_type_error_as_any_unknown_keyword_is():
    with pytest.raises(TypeError, match="cafile"):
        sluice.Client(cafile="/etc/ssl/certs/ca-certificates.crt")
    with pytest.raises(TypeError, match="host_dispatch"):
        sluice.Client(host_dispatch=False)
