#pragma once
/// @file
/// Response body reading (BodyReader) and request body writing (BodyWriter), both
/// with backpressure: a reader that stops reading stops the transport, a writer that
/// writes faster than the network takes waits.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "sluice/error.hpp"
#include "sluice/headers.hpp"

namespace sluice {

class StagingBuffer;  // internal: the mutex-guarded queue between threads

/// Reads one response body. Movable, not copyable; use from one consumer thread at a
/// time (any thread). Destroying it unread: a body that fits under the mark completes
/// and its connection is reused; a longer one closes the connection.
class BodyReader {
 public:
  BodyReader() = default;
  explicit BodyReader(std::shared_ptr<StagingBuffer> staging);
  BodyReader(BodyReader&&) noexcept = default;
  BodyReader& operator=(BodyReader&&) noexcept;
  ~BodyReader();

  /// Blocks until at least one byte is available, the body ends (returns 0), or the
  /// body fails (a body that ends early is an error, never a short success).
  Result<std::size_t> read(std::span<std::byte> into);
  /// Like read, but returns std::nullopt when nothing arrived within `timeout`.
  Result<std::optional<std::size_t>> read_for(std::span<std::byte> into,
                                              std::chrono::milliseconds timeout);
  /// Reads to the end. Fails with too_large when the body exceeds `limit` bytes.
  Result<std::string> read_all(std::size_t limit = 64 * 1024 * 1024);

  /// Callback mode: from now on each chunk is handed to `on_data` on the HTTP thread
  /// (it must not block; returning false pauses delivery until resume()), and
  /// `on_end` fires once, with the final status. Bytes already staged are delivered
  /// first. Do not mix with read().
  using DataCallback = std::function<bool(std::span<const std::byte>)>;
  using EndCallback = std::function<void(Result<void>)>;
  void on_data(DataCallback on_data, EndCallback on_end);
  /// Resumes a callback-mode body paused by returning false.
  void resume();

  /// Trailer fields, available after the body ended.
  Headers trailers() const;
  /// Decoded bytes received and waiting to be read: over HTTP/1.1 at most the mark
  /// plus one receive; over HTTP/2 and HTTP/3 at most the mark plus what the stream's
  /// window let the server send beyond it (the window is the mark, unless it grew
  /// while the reader kept up on a long path: ClientOptions::max_stream_window).
  std::size_t buffered() const;
  /// Bytes handed to the reader so far (decoded).
  std::uint64_t bytes_read() const noexcept { return bytes_read_; }
  bool valid() const noexcept { return staging_ != nullptr; }

 private:
  std::shared_ptr<StagingBuffer> staging_;
  std::uint64_t bytes_read_ = 0;
};

class SourceQueue;  // internal

/// The producer side of a streaming request body (StreamBody). Thread-safe: any one
/// producer thread writes while the HTTP thread takes bytes.
class BodyWriter {
 public:
  /// `mark`: bytes the writer may run ahead of the network before write() waits.
  static std::shared_ptr<BodyWriter> create(std::size_t mark = 256 * 1024);
  explicit BodyWriter(std::shared_ptr<SourceQueue> queue);
  ~BodyWriter();

  /// Copies `bytes` into the source queue, waiting while it is at or above the mark.
  /// Fails when the request ended (cancelled, failed, server stopped reading).
  Result<void> write(std::span<const std::byte> bytes);
  Result<void> write(std::string_view text);
  /// Like write, but returns false when the queue stayed above the mark for `timeout`
  /// (nothing was written).
  Result<bool> write_for(std::span<const std::byte> bytes, std::chrono::milliseconds timeout);
  /// Calls `ready` (on the HTTP thread) once the queue is below the mark again.
  void when_writable(std::function<void()> ready);
  /// Ends the body. With a declared length, closing short is an error for the request.
  void close();
  /// Fails the request with `reason`.
  void abort(std::string reason);

  std::shared_ptr<SourceQueue> queue() const { return queue_; }

 private:
  std::shared_ptr<SourceQueue> queue_;
};

}  // namespace sluice
