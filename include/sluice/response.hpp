#pragma once
/// @file
/// sluice::Response and sluice::PendingResponse.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "sluice/body.hpp"
#include "sluice/error.hpp"
#include "sluice/headers.hpp"

namespace sluice {

enum class HttpVersion { http1_1, http2, http3 };
/// "1.1", "2", "3": the form curl's %{http_version} prints.
const char* to_string(HttpVersion version) noexcept;

/// A response whose headers arrived; its body streams through `body`.
struct Response {
  int status = 0;
  Headers headers;
  HttpVersion version = HttpVersion::http1_1;
  std::string effective_url;  ///< after redirects
  int redirects = 0;          ///< how many were followed
  BodyReader body;
};

struct PendingState;  // internal

/// A request in flight until its response headers arrive. Wait on it, give it a
/// callback, or cancel it; any thread. Cancelling after the headers arrived also
/// cancels the body (its reader then fails with category cancelled).
/// Move-only, like a future: dropping it before wait() or then() took the response
/// cancels the request (a response nobody can read would hold its connection).
class PendingResponse {
 public:
  PendingResponse() = default;
  explicit PendingResponse(std::shared_ptr<PendingState> state);
  PendingResponse(PendingResponse&&) noexcept = default;
  PendingResponse& operator=(PendingResponse&& other) noexcept;
  PendingResponse(const PendingResponse&) = delete;
  PendingResponse& operator=(const PendingResponse&) = delete;
  ~PendingResponse();

  /// Blocks until the response headers arrive or the request fails.
  Result<Response> wait();
  /// std::nullopt if nothing was decided within `timeout`.
  std::optional<Result<Response>> wait_for(std::chrono::milliseconds timeout);
  /// `done` fires once, on the HTTP thread (or at once on this thread if already
  /// decided). Do not also wait().
  void then(std::function<void(Result<Response>)> done);
  /// Any thread; idempotent.
  void cancel();

 private:
  void abandon() noexcept;
  std::shared_ptr<PendingState> state_;
};

}  // namespace sluice
