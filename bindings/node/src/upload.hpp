#pragma once
// Upload: the writer of a streamed request body (a ReadableStream in JS). JS thread
// only; part of its Exchange.
//
// JS pumps: it awaits when_writable() before it reads the next chunk from its
// stream, then writes it, so the stream is pulled only when the library can take
// more (the writer is below its mark). A write copies the chunk into the library's
// queue; nothing else is kept here.
//
// The library's writable callback gets a heap token (a weak_ptr to the Exchange),
// not the Exchange: when the request ends first, the library drops a callback it
// holds, and the token (a few bytes) is what leaks then, never a dangling pointer.

#include <node_api.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "sluice/sluice.h"

namespace sluice_node {

class Exchange;

class Upload {
 public:
  explicit Upload(Exchange& exchange) : exchange_(exchange) {}
  ~Upload();
  Upload(const Upload&) = delete;
  Upload& operator=(const Upload&) = delete;

  /// Takes a reference on `writer` (the request keeps its own).
  void attach(sluice_body_writer* writer) noexcept { writer_ = writer; }
  /// A promise settled when the writer is below its mark (at once, when it is).
  napi_value when_writable(napi_env env);
  /// Copies `bytes` in: true, or false when the writer is full (nothing written;
  /// await when_writable again). Throws the library's error when the request ended.
  bool write(napi_env env, std::span<const std::uint8_t> bytes);
  void close(napi_env env);
  void abort(std::string_view reason) noexcept;
  /// The request ended: a waiting when_writable rejects.
  void fail_wait(sluice_code code, std::string_view message) noexcept;

 private:
  static void on_writable(void* user_data) noexcept;
  void settle_writable() noexcept;
  sluice_body_writer* require_writer(napi_env env);

  Exchange& exchange_;
  sluice_body_writer* writer_ = nullptr;
  napi_deferred writable_ = nullptr;
};

}  // namespace sluice_node
