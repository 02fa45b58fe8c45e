#pragma once
// Transport: a non-blocking byte stream over a connected socket, plain TCP or TLS.
// The socket code of sluice: protocols never see a file descriptor; connections in
// src/net move bytes between a Transport and a sans-IO protocol object.
// Ownership: HTTP thread only.

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/byte_queue.hpp"
#include "sluice/error.hpp"
#include "sluice/response.hpp"

namespace sluice {

enum class IoStatus {
  done,        ///< `bytes` moved (read: > 0)
  want_read,   ///< nothing moved; retry when the fd is readable
  want_write,  ///< nothing moved; retry when the fd is writable (TLS may need it)
  eof,         ///< read only: the peer closed cleanly (TLS: close_notify or TCP FIN)
};

struct IoOutcome {
  std::size_t bytes = 0;
  IoStatus status = IoStatus::done;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int fd() const noexcept = 0;
  /// Advances the handshake (a no-op returning done for plain TCP). `done` means
  /// ready for read/write; want_read/want_write say which readiness to wait for.
  virtual Result<IoStatus> handshake() = 0;
  virtual Result<IoOutcome> read(std::span<std::byte> into) = 0;
  /// After want_write/want_read, call write() again with the same bytes first (they
  /// may have moved in memory, and more may follow them): TLS has already encrypted
  /// part of them into a record it must finish sending.
  virtual Result<IoOutcome> write(std::span<const std::byte> from) = 0;
  /// The ALPN protocol the server selected ("h2", "http/1.1"), empty if none.
  virtual std::string alpn() const = 0;
  /// Whether the handshake completed and the peer is authenticated (or insecure).
  virtual bool is_tls() const noexcept = 0;
  /// Whether read() can return bytes without the fd becoming readable again (TLS
  /// keeps the decrypted rest of a partly read record). A caller that paused reading
  /// and resumes must read once instead of waiting for EPOLLIN when this is true.
  virtual bool has_buffered_input() const noexcept { return false; }
  /// Plaintext already decrypted and waiting in this process (TLS: the rest of a partly
  /// read record): bytes a read returns with no socket read at all.
  virtual std::size_t decrypted_input() const noexcept { return 0; }
  /// Whether the last read() returned eof because a TLS peer closed TCP without
  /// close_notify: that eof is not authenticated, so data whose end only the close
  /// marks (an HTTP/1.1 close-delimited body) may have been cut by an attacker.
  /// Always false for plain TCP, which has no way to tell.
  virtual bool ended_without_close_notify() const noexcept { return false; }
  /// Whether the TLS handshake resumed a cached session (no certificate exchange).
  /// Always false for plain TCP and for a full handshake.
  virtual bool resumed_session() const noexcept { return false; }
  /// Whether the TLS handshake offered a cached session (resumed or declined by the
  /// server). Always false for plain TCP.
  virtual bool offered_session() const noexcept { return false; }
  /// The peer certificate check's result once the handshake is done: 0 (X509_V_OK)
  /// or an X509_V_ERR_* code. TLS runs the check under `insecure` too (it only does
  /// not fail the handshake then), so the code is real either way. 0 for plain TCP.
  virtual long verify_result() const noexcept { return 0; }
  /// What the handshake settled (version, cipher, ALPN, the server's certificate),
  /// once it is done; nullopt for plain TCP.
  virtual std::optional<TlsInfo> tls_info() const { return std::nullopt; }
  /// Plain TCP: gives up the socket (the transport no longer closes it), for a TLS
  /// session to take over after a proxy's tunnel opened. TLS: -1, its socket stays.
  virtual int release_socket() noexcept { return -1; }
  /// Frees what the transport keeps between reads and writes (TLS: its record
  /// buffers) when nothing is pending there; the next read or write makes them
  /// again. For the sweep (memory rule 3). Returns the bytes freed, 0 when there was
  /// nothing to free or it was freed already.
  virtual std::size_t release_buffers() noexcept { return 0; }
};

/// Wraps a connected non-blocking socket; the transport owns and closes it.
std::unique_ptr<Transport> make_plain_transport(int fd);

}  // namespace sluice

namespace sluice {

/// Reads from `transport` into `into` until it holds `limit` bytes or the transport
/// has nothing more now. TLS hands out one 16 KiB record per read; gathering them
/// means one parse and one hand-over per receive. Returns done when the receive
/// filled up (more may wait), otherwise the status that stopped it.
Result<IoStatus> receive_into(Transport& transport, ByteQueue& into, std::size_t limit);
/// The same into memory the caller owns: fills `into` as far as the transport has
/// bytes now. Returns the bytes received and done when it filled up, otherwise the
/// status that stopped it.
Result<IoOutcome> receive_into(Transport& transport, std::span<std::byte> into);

}  // namespace sluice
