// ngtcp2's callbacks for QuicCodec: noexcept trampolines that recover the
// connection from user_data, call one member, and turn a failure (kept on the
// connection as failure_) into NGTCP2_ERR_CALLBACK_FAILURE. No exception crosses
// ngtcp2's C frames.
//
// Ownership: HTTP thread only; they run inside ngtcp2_conn_read_pkt, _writev_stream
// and _handle_expiry calls of the connection.

#include <gnutls/crypto.h>
#include <ngtcp2/ngtcp2_crypto.h>

#include <exception>

#include "quic/quic_codec.hpp"
#include "quic/quic_errors.hpp"

namespace sluice {
namespace {

// The TLS alert for an ALPN mismatch (RFC 7301).
constexpr std::uint8_t kNoApplicationProtocolAlert = 120;

}  // namespace

struct QuicCallbacks {
  // Runs `body` for the connection behind `user_data`; a failure recorded during it
  // (by the body, or by the application closing the connection from inside) stops
  // ngtcp2.
  template <class Body>
  static int guarded(void* user_data, Body&& body) noexcept {
    auto* self = static_cast<QuicCodec*>(user_data);
    try {
      const int rv = body(*self);
      if (rv != 0 || self->failure_ || self->state_ == QuicCodec::State::closed)
        return NGTCP2_ERR_CALLBACK_FAILURE;
      return 0;
    } catch (const std::exception& e) {
      return internal_failure(*self, e.what());
    } catch (...) {
      return internal_failure(*self, "unknown exception");
    }
  }

  static int internal_failure(QuicCodec& self, const char* what) noexcept {
    try {
      self.fail_from_application(
          Error(ErrorCategory::io, std::string("QUIC: internal failure: ") + what),
          QuicCodec::kH3InternalError);
    } catch (...) {
      // Out of memory while reporting: ngtcp2 still stops, and the caller reports
      // the library error it returns.
    }
    return NGTCP2_ERR_CALLBACK_FAILURE;
  }

  static int handshake_completed(ngtcp2_conn*, void* user_data) noexcept {
    return guarded(user_data, [](QuicCodec& self) { return self.handle_handshake_completed(); });
  }

  static int early_data_rejected(ngtcp2_conn*, void* user_data) noexcept {
    return guarded(user_data, [](QuicCodec& self) {
      self.handle_early_data_rejected();
      return 0;
    });
  }

  static int handshake_confirmed(ngtcp2_conn*, void* user_data) noexcept {
    return guarded(user_data, [](QuicCodec& self) {
      self.handshake_confirmed_ = true;
      self.port_.request_write();  // a write round follows: requeue_ is queued a last time
      return 0;
    });
  }

  static int recv_stream_data(ngtcp2_conn*, std::uint32_t flags, std::int64_t stream_id,
                              std::uint64_t /*offset*/, const std::uint8_t* data,
                              std::size_t datalen, void* user_data,
                              void* /*stream_user_data*/) noexcept {
    return guarded(user_data, [&](QuicCodec& self) {
      return self.handle_stream_data(flags, stream_id, {data, datalen});
    });
  }

  static int acked_stream_data_offset(ngtcp2_conn*, std::int64_t stream_id,
                                      std::uint64_t /*offset*/, std::uint64_t datalen,
                                      void* user_data, void* /*stream_user_data*/) noexcept {
    return guarded(user_data, [&](QuicCodec& self) {
      self.app_.on_stream_acked(stream_id, datalen);
      return 0;
    });
  }

  static int stream_close(ngtcp2_conn*, std::uint32_t flags, std::int64_t stream_id,
                          std::uint64_t app_error_code, void* user_data,
                          void* /*stream_user_data*/) noexcept {
    return guarded(user_data, [&](QuicCodec& self) {
      std::optional<std::uint64_t> code;
      if ((flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET) != 0) code = app_error_code;
      self.app_.on_stream_closed(stream_id, code);
      return 0;
    });
  }

  static int stream_reset(ngtcp2_conn*, std::int64_t stream_id, std::uint64_t /*final_size*/,
                          std::uint64_t app_error_code, void* user_data,
                          void* /*stream_user_data*/) noexcept {
    return guarded(user_data, [&](QuicCodec& self) {
      self.app_.on_stream_reset(stream_id, app_error_code);
      return 0;
    });
  }

  static int extend_max_stream_data(ngtcp2_conn*, std::int64_t stream_id,
                                    std::uint64_t /*max_data*/, void* user_data,
                                    void* /*stream_user_data*/) noexcept {
    return guarded(user_data, [&](QuicCodec& self) {
      self.app_.on_stream_writable(stream_id);
      return 0;
    });
  }

  static int extend_max_local_streams_bidi(ngtcp2_conn*, std::uint64_t /*max_streams*/,
                                           void* user_data) noexcept {
    return guarded(user_data, [](QuicCodec& self) {
      // Before the handshake completes this reports the server's initial limit;
      // the application hears of it through on_handshake_completed instead.
      if (self.app_started_) self.app_.on_streams_available();
      return 0;
    });
  }

  static int recv_stateless_reset(ngtcp2_conn*, const ngtcp2_pkt_stateless_reset*,
                                  void* user_data) noexcept {
    static_cast<QuicCodec*>(user_data)->stateless_reset_ = true;
    return 0;
  }

  static void rand(std::uint8_t* dest, std::size_t destlen, const ngtcp2_rand_ctx*) noexcept {
    // Only for non-cryptographic uses (ngtcp2's documentation); a failing RNG here
    // leaves the bytes as they are, which is still within that contract.
    (void)gnutls_rnd(GNUTLS_RND_NONCE, dest, destlen);
  }

  static int get_new_connection_id(ngtcp2_conn*, ngtcp2_cid* cid, std::uint8_t* token,
                                   std::size_t cidlen, void*) noexcept {
    if (gnutls_rnd(GNUTLS_RND_RANDOM, cid->data, cidlen) != 0) return NGTCP2_ERR_CALLBACK_FAILURE;
    cid->datalen = cidlen;
    if (gnutls_rnd(GNUTLS_RND_RANDOM, token, NGTCP2_STATELESS_RESET_TOKENLEN) != 0)
      return NGTCP2_ERR_CALLBACK_FAILURE;
    return 0;
  }

  static ngtcp2_callbacks make_table() noexcept {
    ngtcp2_callbacks table{};
    // The TLS handshake and packet protection: ngtcp2_crypto over GnuTLS.
    table.client_initial = ngtcp2_crypto_client_initial_cb;
    table.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb;
    table.encrypt = ngtcp2_crypto_encrypt_cb;
    table.decrypt = ngtcp2_crypto_decrypt_cb;
    table.hp_mask = ngtcp2_crypto_hp_mask_cb;
    table.recv_retry = ngtcp2_crypto_recv_retry_cb;
    table.update_key = ngtcp2_crypto_update_key_cb;
    table.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb;
    table.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb;
    table.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb;
    table.version_negotiation = ngtcp2_crypto_version_negotiation_cb;
    // The connection and its streams.
    table.handshake_completed = handshake_completed;
    table.handshake_confirmed = handshake_confirmed;
    table.recv_stream_data = recv_stream_data;
    table.acked_stream_data_offset = acked_stream_data_offset;
    table.stream_close = stream_close;
    table.stream_reset = stream_reset;
    table.extend_max_stream_data = extend_max_stream_data;
    table.extend_max_local_streams_bidi = extend_max_local_streams_bidi;
    table.recv_stateless_reset = recv_stateless_reset;
    table.early_data_rejected = early_data_rejected;
    table.rand = rand;
    table.get_new_connection_id = get_new_connection_id;
    // Not set: stream_stop_sending reports OUR stop of reading in 0.12 (the
    // application asked for it); a peer's STOP_SENDING surfaces as
    // NGTCP2_ERR_STREAM_SHUT_WR when writing (quic_codec_io.cpp).
    return table;
  }
};

const ngtcp2_callbacks& QuicCodec::callbacks() {
  static const ngtcp2_callbacks table = QuicCallbacks::make_table();
  return table;
}

// ---- the members they call --------------------------------------------------

int QuicCodec::handle_handshake_completed() {
  const std::string alpn = tls_->selected_alpn();
  if (alpn != "h3") {
    // GnuTLS requires a match (GNUTLS_ALPN_MANDATORY); this guards the contract.
    const std::string shown = alpn.empty() ? "none" : alpn;
    terminate(
        Failure{Error(ErrorCategory::tls,
                      "TLS: " + options_.host + " did not agree to HTTP/3 (ALPN " + shown + ")"),
                quic_tls_alert_close(kNoApplicationProtocolAlert)});
    return NGTCP2_ERR_CALLBACK_FAILURE;
  }
  handshake_done_ = true;
  state_ = State::open;
  const bool resumed = tls_->note_handshake_done();
  if (trace_.on()) {
    trace(std::string("handshake done (ALPN h3), ") +
          (resumed ? "session resumed" : "full handshake"));
  }
  keep_transport_params();
  if (early_) {
    const bool accepted = tls_->early_data_accepted();
    ++(accepted ? tls_->tickets().early_accepted : tls_->tickets().early_rejected);
    if (trace_.on()) {
      trace(accepted ? "0-RTT early data accepted"
                     : "0-RTT early data refused: its requests go again");
    }
    // GnuTLS tells only now; ngtcp2 then drops the early streams and calls
    // handle_early_data_rejected.
    if (!accepted && ngtcp2_conn_early_data_rejected(conn_) != 0)
      return NGTCP2_ERR_CALLBACK_FAILURE;
  }
  start_application();
  return 0;
}

// The server's transport parameters, kept with the session for the next
// connection's early data.
void QuicCodec::keep_transport_params() {
  const ngtcp2_transport_params* params = ngtcp2_conn_get_remote_transport_params(conn_);
  if (params == nullptr) return;
  std::uint8_t buffer[512];
  const ngtcp2_ssize n = ngtcp2_encode_transport_params(
      buffer, sizeof buffer, NGTCP2_TRANSPORT_PARAMS_TYPE_ENCRYPTED_EXTENSIONS, params);
  if (n > 0) tls_->keep_transport_params(std::string(reinterpret_cast<const char*>(buffer), n));
}

void QuicCodec::handle_early_data_rejected() {
  // ngtcp2 forgot the streams: nothing may be asked about them any more.
  requeue_.clear();
  deferred_.clear();
  if (app_started_) app_.on_early_data_rejected();
  app_started_ = false;
}

void QuicCodec::start_application() {
  if (handshake_told_ || state_ != State::open) return;
  handshake_told_ = true;
  app_started_ = true;
  auto started = app_.on_handshake_completed(*this);
  if (!started) fail_from_application(std::move(started).error(), kH3InternalError);
}

// Before the first packet of a connection that may send early data: the
// application opens its streams now, so its requests go with the ClientHello.
void QuicCodec::start_early_application() {
  if (!early_ || app_started_ || state_ != State::handshaking) return;
  app_started_ = true;
  if (trace_.on()) trace("0-RTT: sending early data with the handshake");
  auto started = app_.on_early_data_ready(*this);
  if (!started) fail_from_application(std::move(started).error(), kH3InternalError);
}

int QuicCodec::handle_stream_data(std::uint32_t flags, std::int64_t stream_id,
                                  std::span<const std::uint8_t> data) {
  // Connection credit comes back at once: only stream windows hold bytes back.
  ngtcp2_conn_extend_max_offset(conn_, data.size());
  start_application();  // in case stream data is handed over before the handshake
  if (!app_started_) return 0;
  const bool fin = (flags & NGTCP2_STREAM_DATA_FLAG_FIN) != 0;
  auto consumed = app_.on_stream_data(stream_id, data, fin);
  if (state_ == State::closed || failure_) return NGTCP2_ERR_CALLBACK_FAILURE;
  if (!consumed) {
    fail_from_application(std::move(consumed).error(), kH3GeneralProtocolError);
    return NGTCP2_ERR_CALLBACK_FAILURE;
  }
  if (*consumed > 0) extend_credit(stream_id, *consumed);
  return 0;
}

}  // namespace sluice
