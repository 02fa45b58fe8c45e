// ngtcp2's callbacks for QuicTestServer: the ngtcp2_crypto ones for the handshake
// and packet protection, and noexcept trampolines that hand stream events to the
// HTTP/3 session. A failure is kept on the server (its first error) and returned
// to ngtcp2 as NGTCP2_ERR_CALLBACK_FAILURE; no exception crosses ngtcp2's frames.
//
// Ownership: the server's thread; they run inside its ngtcp2_conn_read_pkt,
// _writev_stream and _handle_expiry calls.

#include <gnutls/crypto.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>

#include <exception>
#include <span>

#include "support/quic_test_server.hpp"
#include "support/quic_test_server_h3.hpp"
#include "support/quic_test_server_tls.hpp"

namespace sluice::test {
namespace {

bool random_fill(std::span<std::uint8_t> out, gnutls_rnd_level_t level) noexcept {
  return gnutls_rnd(level, out.data(), out.size()) == 0;
}

}  // namespace

struct QuicTestServerCallbacks {
  // Runs `body` (returning Result<void>) for the server behind `user_data`.
  template <class Body>
  static int guarded(void* user_data, Body&& body) noexcept {
    auto& server = *static_cast<QuicTestServer*>(user_data);
    try {
      Result<void> done = body(server);
      if (done) return 0;
      server.note(done.error().message());
    } catch (const std::exception& e) {
      server.note(std::string("QuicTestServer: exception in an ngtcp2 callback: ") + e.what());
    } catch (...) {
      server.note("QuicTestServer: unknown exception in an ngtcp2 callback");
    }
    return NGTCP2_ERR_CALLBACK_FAILURE;
  }

  // Stream events before the HTTP/3 session exists concern no request: ignored.
  static H3ServerSession* h3(QuicTestServer& server) { return server.h3_.get(); }

  static int handshake_completed(ngtcp2_conn*, void* user_data) noexcept {
    return guarded(user_data, [](QuicTestServer& server) -> Result<void> {
      if (server.tls_->alpn() != "h3")  // GnuTLS enforces it; this states the contract
        return Error(ErrorCategory::tls, "QuicTestServer: the client did not agree to h3");
      server.handshake_done_ = true;
      server.tls_->send_ticket();
      if (!server.start_h3()) return Error(ErrorCategory::protocol, server.error_);
      return {};
    });
  }

  static int recv_stream_data(ngtcp2_conn*, std::uint32_t flags, std::int64_t stream_id,
                              std::uint64_t /*offset*/, const std::uint8_t* data,
                              std::size_t length, void* user_data, void*) noexcept {
    return guarded(user_data, [&](QuicTestServer& server) -> Result<void> {
      if (!server.start_h3()) return Error(ErrorCategory::protocol, server.error_);
      return server.h3_->on_stream_data(stream_id, {data, length},
                                        (flags & NGTCP2_STREAM_DATA_FLAG_FIN) != 0);
    });
  }

  static int acked_stream_data_offset(ngtcp2_conn*, std::int64_t stream_id,
                                      std::uint64_t /*offset*/, std::uint64_t length,
                                      void* user_data, void*) noexcept {
    return guarded(user_data, [&](QuicTestServer& server) -> Result<void> {
      if (H3ServerSession* session = h3(server)) return session->on_acked(stream_id, length);
      return {};
    });
  }

  static int stream_close(ngtcp2_conn* conn, std::uint32_t flags, std::int64_t stream_id,
                          std::uint64_t app_error, void* user_data, void*) noexcept {
    return guarded(user_data, [&](QuicTestServer& server) -> Result<void> {
      // A client's request stream is done: it may open another in its place.
      if (ngtcp2_is_bidi_stream(stream_id) && !ngtcp2_conn_is_local_stream(conn, stream_id))
        ngtcp2_conn_extend_max_streams_bidi(conn, 1);
      if ((flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET) == 0) app_error = kH3NoError;
      if (H3ServerSession* session = h3(server))
        return session->on_stream_closed(stream_id, app_error);
      return {};
    });
  }

  static int stream_reset(ngtcp2_conn*, std::int64_t stream_id, std::uint64_t /*final_size*/,
                          std::uint64_t app_error, void* user_data, void*) noexcept {
    return guarded(user_data, [&](QuicTestServer& server) -> Result<void> {
      if (H3ServerSession* session = h3(server))
        return session->on_stream_reset(stream_id, app_error);
      return {};
    });
  }

  static int extend_max_stream_data(ngtcp2_conn*, std::int64_t stream_id, std::uint64_t,
                                    void* user_data, void*) noexcept {
    return guarded(user_data, [&](QuicTestServer& server) -> Result<void> {
      if (H3ServerSession* session = h3(server)) return session->on_writable(stream_id);
      return {};
    });
  }

  static int extend_max_remote_streams_bidi(ngtcp2_conn*, std::uint64_t max_streams,
                                            void* user_data) noexcept {
    return guarded(user_data, [&](QuicTestServer& server) -> Result<void> {
      if (H3ServerSession* session = h3(server)) session->on_max_client_streams(max_streams);
      return {};
    });
  }

  // For ngtcp2's non-cryptographic choices (its documentation says so).
  static void rand(std::uint8_t* dest, std::size_t length, const ngtcp2_rand_ctx*) noexcept {
    (void)random_fill({dest, length}, GNUTLS_RND_NONCE);
  }

  // The token is kept: a stateless_reset answer needs the one of the ID in use.
  static int get_new_connection_id(ngtcp2_conn*, ngtcp2_cid* cid, std::uint8_t* token,
                                   std::size_t length, void* user_data) noexcept {
    cid->datalen = length;
    const bool filled = random_fill({cid->data, length}, GNUTLS_RND_RANDOM) &&
                        random_fill({token, NGTCP2_STATELESS_RESET_TOKENLEN}, GNUTLS_RND_RANDOM);
    if (!filled) return NGTCP2_ERR_CALLBACK_FAILURE;
    try {
      static_cast<QuicTestServer*>(user_data)->reset_tokens_.insert_or_assign(
          std::vector<std::uint8_t>(cid->data, cid->data + length),
          std::vector<std::uint8_t>(token, token + NGTCP2_STATELESS_RESET_TOKENLEN));
    } catch (...) {
      return NGTCP2_ERR_CALLBACK_FAILURE;
    }
    return 0;
  }

  static ngtcp2_callbacks table() noexcept {
    ngtcp2_callbacks callbacks{};
    // The handshake and packet protection, as ngtcp2_crypto does them for a server.
    callbacks.recv_client_initial = ngtcp2_crypto_recv_client_initial_cb;
    callbacks.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb;
    callbacks.encrypt = ngtcp2_crypto_encrypt_cb;
    callbacks.decrypt = ngtcp2_crypto_decrypt_cb;
    callbacks.hp_mask = ngtcp2_crypto_hp_mask_cb;
    callbacks.update_key = ngtcp2_crypto_update_key_cb;
    callbacks.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb;
    callbacks.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb;
    callbacks.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb;
    callbacks.version_negotiation = ngtcp2_crypto_version_negotiation_cb;
    callbacks.rand = rand;
    callbacks.get_new_connection_id = get_new_connection_id;
    // The connection and its streams.
    callbacks.handshake_completed = handshake_completed;
    callbacks.recv_stream_data = recv_stream_data;
    callbacks.acked_stream_data_offset = acked_stream_data_offset;
    callbacks.stream_close = stream_close;
    callbacks.stream_reset = stream_reset;
    callbacks.extend_max_stream_data = extend_max_stream_data;
    callbacks.extend_max_remote_streams_bidi = extend_max_remote_streams_bidi;
    return callbacks;
  }
};

const ngtcp2_callbacks& QuicTestServer::callbacks() {
  static const ngtcp2_callbacks table = QuicTestServerCallbacks::table();
  return table;
}

}  // namespace sluice::test
