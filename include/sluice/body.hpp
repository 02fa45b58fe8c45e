#pragma once
/// @file
/// Response body reading (BodyReader) and request body writing (BodyWriter), both
/// with backpressure: a reader that stops reading stops the transport, a writer that
/// writes faster than the network takes waits.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "sluice/error.hpp"
#include "sluice/export.h"
#include "sluice/headers.hpp"

namespace sluice {

class StagingBuffer;  // internal: the mutex-guarded queue between threads
struct BodyAccess;    // internal: how the library makes readers and reaches writers
class CallbackBody;

/// Body bytes lent by BodyReader::next(): they stay where the HTTP thread staged them,
/// so reading them costs no copy. While held they still count against the response's
/// allowance (a reader that keeps a chunk holds its stream like one that has not read
/// it).
/// Valid until release(), the reader's next next()/read(), or the reader's end,
/// whichever comes first; releasing it later does nothing. Move-only; release it
/// from any thread.
class SLUICE_API BodyChunk {
 public:
  BodyChunk() = default;
  BodyChunk(BodyChunk&& other) noexcept;
  BodyChunk& operator=(BodyChunk&& other) noexcept;
  BodyChunk(const BodyChunk&) = delete;
  BodyChunk& operator=(const BodyChunk&) = delete;
  ~BodyChunk() { release(); }

  /// The lent bytes; empty once the body has ended.
  std::span<const std::byte> bytes() const noexcept { return bytes_; }
  std::size_t size() const noexcept { return bytes_.size(); }
  bool empty() const noexcept { return bytes_.empty(); }
  /// Gives the bytes back early (the next next() or read() does it anyway).
  void release() noexcept;

 private:
  friend class BodyReader;
  BodyChunk(std::shared_ptr<StagingBuffer> staging, std::span<const std::byte> bytes,
            std::uint64_t lend) noexcept;

  std::shared_ptr<StagingBuffer> staging_;
  std::span<const std::byte> bytes_;
  std::uint64_t lend_ = 0;
};

/// Reads one response body, pulling: read() on the caller's thread, or hand the body
/// to callbacks with on_data(), which consumes the reader (the choice is made once,
/// by the type: a CallbackBody has no read()). Movable, not copyable; use from one
/// consumer thread at a time (any thread). Destroying it unread: a body that fits
/// in its allowance completes and its connection is reused; a longer one closes the
/// connection.
class SLUICE_API BodyReader {
 public:
  BodyReader() = default;
  BodyReader(BodyReader&&) noexcept = default;
  BodyReader& operator=(BodyReader&&) noexcept;
  ~BodyReader();

  /// Blocks until at least one byte is available, the body ends (returns 0), or the
  /// body fails (a body that ends early is an error, never a short success).
  Result<std::size_t> read(std::span<std::byte> into);
  /// Like read, but returns std::nullopt when nothing arrived within `timeout`.
  Result<std::optional<std::size_t>> read_for(std::span<std::byte> into,
                                              std::chrono::milliseconds timeout);
  /// Borrows the next staged bytes in place instead of copying them (at most `max`,
  /// and at most what one staged block holds): blocks like read(), returns an empty
  /// chunk at the end, fails like read(). Gives back the previous chunk first.
  /// `max` 0 means no limit, as in C's sluice_response_next (an empty chunk means the
  /// end, so a chunk of at most 0 bytes could say nothing else).
  Result<BodyChunk> next(std::size_t max = SIZE_MAX);
  /// Like next, but returns std::nullopt when nothing arrived within `timeout`.
  Result<std::optional<BodyChunk>> next_for(std::chrono::milliseconds timeout,
                                            std::size_t max = SIZE_MAX);
  /// Reads to the end. Fails with too_large when the body exceeds `limit` bytes.
  Result<std::string> read_all(std::size_t limit = 64 * 1024 * 1024);

  using DataCallback = std::function<bool(std::span<const std::byte>)>;
  using EndCallback = std::function<void(Result<void>)>;
  /// Callback mode: from now on each chunk is handed to `on_data` on the HTTP thread
  /// (it must not block; returning false pauses delivery until CallbackBody::resume()),
  /// and `on_end` fires once, with the final status. Bytes already staged are
  /// delivered first. The reader is consumed (`std::move(body).on_data(...)`): from
  /// then on the callbacks own the body, and the CallbackBody it returns is only a
  /// handle for resume() (dropping it ends nothing; cancel the request to stop).
  CallbackBody on_data(DataCallback on_data, EndCallback on_end) &&;

  /// Trailer fields, available after the body ended.
  Headers trailers() const;
  /// Decoded bytes received and waiting to be read: at most the response's allowance
  /// (Request::allowance: it starts small and grows while the reader keeps up), plus
  /// over HTTP/2 and HTTP/3 what credit already given for taken bytes let the server
  /// send.
  std::size_t buffered() const;
  /// When the body ended, on the clock of Response::timing (Resource Timing's
  /// responseEnd, curl's time_total): its last byte arrived, or it failed. nullopt
  /// while it is under way.
  std::optional<std::chrono::steady_clock::time_point> ended_at() const;
  /// Bytes handed to the reader so far (decoded).
  std::uint64_t bytes_read() const noexcept { return bytes_read_; }
  /// Body bytes of this response received from the server so far, as they came
  /// (before content decoding; without HTTP/1.1 chunk framing): what curl's
  /// %{size_download} counts. Equal to bytes_read() once an undecoded body is read to
  /// its end; for a decoded one it is the compressed size. Any thread.
  std::uint64_t bytes_received() const;
  bool valid() const noexcept { return staging_ != nullptr; }

 private:
  friend struct BodyAccess;
  explicit BodyReader(std::shared_ptr<StagingBuffer> staging);

  std::shared_ptr<StagingBuffer> staging_;
  std::uint64_t bytes_read_ = 0;
};

/// A handle on a response body in callback mode (BodyReader::on_data): the callbacks
/// own the body, this resumes it. Copyable; any thread. Dropping it ends nothing.
class SLUICE_API CallbackBody {
 public:
  CallbackBody() = default;

  /// Resumes delivery paused by on_data returning false. Any thread. Once the Client
  /// is destroyed, the callbacks run here, on the caller's thread, before it returns:
  /// the bytes still staged, then on_end (the body's error if the Client cut it).
  void resume();
  /// Trailer fields, available after the body ended.
  Headers trailers() const;
  /// Decoded bytes staged and not yet handed to on_data.
  std::size_t buffered() const;
  /// When the body ended (see BodyReader::ended_at).
  std::optional<std::chrono::steady_clock::time_point> ended_at() const;
  bool valid() const noexcept { return staging_ != nullptr; }

 private:
  friend class BodyReader;
  explicit CallbackBody(std::shared_ptr<StagingBuffer> staging);

  std::shared_ptr<StagingBuffer> staging_;
};

class SourceQueue;  // internal

/// The producer side of a streaming request body (StreamBody). Thread-safe: any one
/// producer thread writes while the HTTP thread takes bytes.
class SLUICE_API BodyWriter {
 public:
  /// `mark`: bytes the writer may run ahead of the network before write() waits.
  static std::shared_ptr<BodyWriter> create(std::size_t mark = 256 * 1024);
  ~BodyWriter();
  BodyWriter(const BodyWriter&) = delete;
  BodyWriter& operator=(const BodyWriter&) = delete;

  /// Copies `bytes` into the source queue, waiting while it is at or above the mark.
  /// Fails when the request ended (cancelled, failed, server stopped reading).
  Result<void> write(std::span<const std::byte> bytes);
  Result<void> write(std::string_view text);
  /// Like write, but returns false when the queue stayed above the mark for `timeout`
  /// (nothing was written).
  Result<bool> write_for(std::span<const std::byte> bytes, std::chrono::milliseconds timeout);
  /// Calls `ready` once (on the HTTP thread) when the queue is below the mark again,
  /// or when the request ended: then the next write fails and says why.
  void when_writable(std::function<void()> ready);
  /// Bytes written and not yet taken by the network: what the mark is measured
  /// against. 0 means the transport has everything written so far (any thread).
  std::size_t queued() const;
  /// Ends the body. With a declared length, closing short is an error for the request.
  void close();
  /// Fails the request with `reason`.
  void abort(std::string reason);

 private:
  friend struct BodyAccess;
  explicit BodyWriter(std::shared_ptr<SourceQueue> queue);

  std::shared_ptr<SourceQueue> queue_;
};

}  // namespace sluice
