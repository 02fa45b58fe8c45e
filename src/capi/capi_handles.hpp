#pragma once
// The structs behind the C API's opaque handles. Each starts with a tag naming its
// type; a handle's free overwrites it first, so a handle passed to the wrong kind of
// function, or used after its free while the memory is not yet reused, is refused
// with SLUICE_E_INVALID_ARGUMENT instead of being trusted: a bad argument returns an
// error, never crashes, where that can be detected.
//
// Ownership: each handle belongs to the C caller; sluice_client is thread-safe like
// sluice::Client, the others are used by one thread at a time, except that
// sluice_pending's cancel may come from any thread (it only touches the
// PendingResponse's shared state, whose cancel is thread-safe).

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capi/capi_call.hpp"
#include "sluice/client.hpp"
#include "sluice/download.hpp"
#include "sluice/multipart.hpp"
#include "sluice/request.hpp"
#include "sluice/response.hpp"
#include "sluice/sluice.h"

namespace sluice::capi {

enum class Tag : std::uint32_t {
  options = 0x534c4f50,          // "SLOP"
  client = 0x534c434c,           // "SLCL"
  request = 0x534c5251,          // "SLRQ"
  writer = 0x534c5752,           // "SLWR"
  pending = 0x534c5044,          // "SLPD"
  response = 0x534c5253,         // "SLRS"
  download = 0x534c444f,         // "SLDO"
  download_result = 0x534c4452,  // "SLDR"
  cookie_jar = 0x534c434a,       // "SLCJ" (capi_cookies.cpp)
  freed = 0xdeadf4ee,
};

template <Tag kTag>
struct Tagged {
  Tag tag = kTag;
  bool alive() const noexcept { return tag == kTag; }
  ~Tagged() { tag = Tag::freed; }
};

/// A pointer is usable as a handle of this type: not null, tagged as one, not freed.
template <class Handle>
bool usable(const Handle* handle) noexcept {
  return handle != nullptr && handle->alive();
}

}  // namespace sluice::capi

struct sluice_client_options : sluice::capi::Tagged<sluice::capi::Tag::options> {
  sluice::ClientOptions options;
};

struct sluice_client : sluice::capi::Tagged<sluice::capi::Tag::client> {
  explicit sluice_client(sluice::Client c) : client(std::move(c)) {}
  sluice::Client client;
};

struct sluice_request : sluice::capi::Tagged<sluice::capi::Tag::request> {
  sluice::Request request;
  /// The form being built by sluice_request_add_form_*; request.body is its body
  /// while request.body holds a PartsBody.
  std::optional<sluice::MultipartForm> form;
};

struct sluice_body_writer : sluice::capi::Tagged<sluice::capi::Tag::writer> {
  std::shared_ptr<sluice::BodyWriter> writer;
};

struct sluice_pending : sluice::capi::Tagged<sluice::capi::Tag::pending> {
  /// Stays after wait() took the response: cancelling it then cancels the body.
  sluice::PendingResponse pending;
  /// Callback mode (sluice_client_send_cb): the cancel handle; waits are refused.
  sluice::RequestHandle handle;
  bool callback_mode = false;
  bool answered = false;  ///< a wait returned (a response or an error); no more waits
};

struct sluice_response : sluice::capi::Tagged<sluice::capi::Tag::response> {
  explicit sluice_response(sluice::Response r) : response(std::move(r)) {}
  sluice::Response response;
  sluice::BodyChunk lent;                         ///< what next() lent, until given back
  std::optional<sluice::Headers> trailers;        ///< read once the body ended
  std::vector<sluice::Header> header_list;        ///< headers by index
  std::optional<sluice::CallbackBody> callbacks;  ///< callback mode: reads are refused
};

struct sluice_download_options : sluice::capi::Tagged<sluice::capi::Tag::download> {
  sluice::DownloadOptions options;
  /// sluice_download_options_cancel stores true; options.cancel points here.
  std::atomic<bool> cancel{false};
};

struct sluice_download_result : sluice::capi::Tagged<sluice::capi::Tag::download_result> {
  explicit sluice_download_result(sluice::DownloadResult r) : result(std::move(r)) {}
  sluice::DownloadResult result;
};

namespace sluice::capi {

/// Runs `set` on a live options handle, or refuses the call.
template <class Set>
sluice_code with_options(const char* function, sluice_client_options* options, Set&& set) {
  if (!usable(options)) return invalid(function, "options is NULL or not a live options handle");
  return capi_call(function, [&] { return set(options->options); });
}

}  // namespace sluice::capi
