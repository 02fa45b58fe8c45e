"""Proxies through the binding: a forwarding proxy for http://, a CONNECT tunnel for
https://, a refusal with the proxy's name and answer, and the environment read only
when trust_env asks for it. Against the fixture's squid; which way a response came
is its remote port (the proxy's, or the server's when it went direct)."""

import asyncio
from urllib.parse import urlsplit

import pytest

import sluice
from conftest import ENV, sha256, sha256_of


def run(coroutine):
    return asyncio.run(coroutine)


def port_of(url):
    return urlsplit(url).port


def test_http_is_forwarded_and_https_tunnelled_through_the_proxy():
    async def main():
        proxy = ENV["SLUICE_SQUID_PROXY"]
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"], proxy=proxy) as client:
            plain = await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/1m.bin")
            assert sha256(await plain.read()) == sha256_of("1m.bin")
            assert plain.remote_address[1] == port_of(proxy)
            secure = await client.fetch(ENV["SLUICE_NGINX_H2_URL"] + "/1m.bin", version="2")
            assert sha256(await secure.read()) == sha256_of("1m.bin")
            assert secure.http_version == "2" and secure.remote_address[1] == port_of(proxy)
    run(main())


def test_a_refused_tunnel_raises_with_the_proxys_answer():
    async def main():
        proxy = ENV["SLUICE_SQUID_AUTH_PROXY"]
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"], proxy=proxy) as client:
            with pytest.raises(sluice.ConnectError, match=r"refused the tunnel .*407"):
                await client.fetch(ENV["SLUICE_NGINX_HTTPS_URL"] + "/small.txt")
    run(main())


def test_the_environment_is_read_only_with_trust_env(monkeypatch):
    proxy = ENV["SLUICE_SQUID_PROXY"]
    server = ENV["SLUICE_NGINX_HTTP_URL"]
    for name in ("all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)  # the machine's own settings stay out
    monkeypatch.setenv("http_proxy", proxy)

    async def remote_port(**options):
        async with sluice.Client(**options) as client:
            response = await client.fetch(server + "/small.txt")
            await response.read()
            return response.remote_address[1]

    assert run(remote_port()) == port_of(server)
    assert run(remote_port(trust_env=True)) == port_of(proxy)
    assert run(remote_port(trust_env=True, no_proxy="127.0.0.1")) == port_of(server)


def test_an_unsupported_proxy_is_refused_when_the_client_is_made():
    with pytest.raises(sluice.UsageError, match="socks4://"):
        sluice.Client(proxy="socks4://127.0.0.1:1080")


def test_socks5_carries_https_with_the_name_resolved_by_the_proxy():
    async def main():
        socks = ENV["SLUICE_SOCKS5_PROXY"].replace("socks5://", "socks5h://")
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"], proxy=socks) as client:
            response = await client.fetch(ENV["SLUICE_NGINX_HTTPS_URL"] + "/1m.bin")
            assert sha256(await response.read()) == sha256_of("1m.bin")
            assert response.remote_address[1] == int(socks.rsplit(":", 1)[1])
    run(main())


def test_an_https_proxy_carries_a_tunnel_inside_its_tls():
    async def main():
        proxy = ENV["SLUICE_HTTPS_PROXY"]
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"], proxy=proxy,
                                 proxy_ca_file=ENV["SLUICE_TEST_CA"]) as client:
            response = await client.fetch(ENV["SLUICE_NGINX_H2_URL"] + "/1m.bin", version="2")
            assert sha256(await response.read()) == sha256_of("1m.bin")
            assert response.http_version == "2" and response.remote_address[1] == port_of(proxy)
    run(main())
