"""TLS options through the binding: a client certificate opens nginx's mutual TLS,
a wrong passphrase fails the Client naming the key, pins are checked, and the stats
count full and resumed handshakes (nginx's one-request-per-connection server)."""

import asyncio

import pytest

import sluice
from conftest import ENV


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_client_certificate_opens_mutual_tls():
    async def main():
        tls = {"client_cert": ENV["SLUICE_CLIENT_CERT"],
               "client_key": ENV["SLUICE_CLIENT_KEY_ENCRYPTED"],
               "key_password": ENV["SLUICE_CLIENT_KEY_PASSPHRASE"],
               "pinned_public_key": ENV["SLUICE_SERVER_PUBKEY_PIN"]}
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"], tls=tls) as client:
            response = await client.fetch(ENV["SLUICE_NGINX_MTLS_URL"] + "/whoami")
            assert await response.read() == b"CN=sluice test client\n"
    run(main())


def test_a_wrong_passphrase_names_the_key():
    key = ENV["SLUICE_CLIENT_KEY_ENCRYPTED"]
    with pytest.raises(sluice.UsageError, match="wrong passphrase .*" + key):
        sluice.Client(tls={"client_cert": ENV["SLUICE_CLIENT_CERT"], "client_key": key,
                           "key_password": "wrong"})


def test_the_tls_dict_takes_the_tls_group_of_the_librarys_table():
    # The names come from the table's fields (tls.session_cache), not a list here.
    members = sluice._options.group("tls")
    assert members["session_cache"] == "tls_session_cache"
    assert members["early_data"] == "tls_early_data"
    assert members["pinned_public_key"] == "pinned_public_key"
    assert "proxy" not in members and "url" not in members

    async def main():
        # The option's own name works as its member name does (the test below):
        # with the cache off, no handshake resumes.
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"],
                                 tls={"tls_session_cache": False}) as client:
            for _ in range(2):
                response = await client.fetch(ENV["SLUICE_NGINX_ONESHOT_URL"] + "/small.txt")
                await response.read()
            assert client.stats()["tls_full_handshakes"] == 2
    run(main())
    with pytest.raises(sluice.UsageError, match="ca_file"):
        sluice.Client(tls={"ca_file": ENV["SLUICE_TEST_CA"]})  # Client()'s own keyword


def test_unknown_tls_options_and_versions_are_refused():
    with pytest.raises(sluice.UsageError, match="no_such_option"):
        sluice.Client(tls={"no_such_option": 1})
    with pytest.raises(sluice.UsageError, match="1.2"):
        sluice.Client(tls={"max_version": "1.1"})


def test_a_pin_mismatch_names_both_pins():
    async def main():
        wrong = "sha256//" + "A" * 43 + "="
        async with sluice.Client(insecure=True, tls={"pinned_public_key": wrong}) as client:
            with pytest.raises(sluice.TlsError) as raised:
                await client.fetch(ENV["SLUICE_NGINX_H2_URL"] + "/small.txt")
            assert wrong in str(raised.value)
            assert ENV["SLUICE_SERVER_PUBKEY_PIN"] in str(raised.value)
    run(main())


@pytest.mark.parametrize("session_cache", [True, False])
def test_the_second_connection_resumes_unless_the_cache_is_off(session_cache):
    async def main():
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"],
                                 tls={"session_cache": session_cache}) as client:
            for _ in range(2):
                response = await client.fetch(ENV["SLUICE_NGINX_ONESHOT_URL"] + "/small.txt")
                await response.read()
            stats = client.stats()
            assert stats["tls_full_handshakes"] == (1 if session_cache else 2)
            assert stats["tls_resumed_handshakes"] == (1 if session_cache else 0)
    run(main())


def test_early_data_is_an_option_and_its_stats_count():
    # One HTTP/3 connection: no ticket yet, so nothing goes early. The library's
    # tests cover the resumed connection that sends early (client_early_data_test).
    async def main():
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"],
                                 tls={"early_data": True}) as client:
            response = await client.fetch(ENV["SLUICE_GTLSSERVER_URL"] + "/small.txt",
                                          version="3")
            await response.read()
            assert response.http_version == "3"
            stats = client.stats()
            assert stats["quic_full_handshakes"] == 1
            assert stats["quic_early_requests"] == 0
            assert stats["quic_early_data_accepted"] == stats["quic_early_data_rejected"] == 0
    run(main())


def test_response_tls_says_what_the_handshake_settled():
    async def main():
        async with sluice.Client(ca_file=ENV["SLUICE_TEST_CA"]) as client:
            response = await client.fetch(ENV["SLUICE_NGINX_H2_URL"] + "/small.txt")
            tls = response.tls
            await response.read()
            plain = await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt")
            await plain.read()
            assert plain.tls is None
        assert tls["version"] in ("TLSv1.2", "TLSv1.3")
        assert tls["cipher"]
        assert tls["alpn"] == "h2"
        assert tls["matched_name"] == "localhost"
        certificate = tls["certificate"]
        assert certificate["subject"] == "CN=localhost"
        assert certificate["issuer"] == "CN=sluice test CA"
        assert "DNS:localhost" in certificate["subject_alt_names"]
        assert certificate["not_before"] < certificate["not_after"]
    run(main())


def test_http_1_0_is_a_version_policy():
    async def main():
        async with sluice.Client() as client:
            response = await client.fetch(ENV["SLUICE_NGINX_HTTP_URL"] + "/small.txt",
                                          version="1.0")
            assert response.status == 200
            assert await response.read()
    run(main())
