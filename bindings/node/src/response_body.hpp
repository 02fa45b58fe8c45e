#pragma once
// ResponseBody: a response body read by pulls from JS. JS thread only; part of its
// Exchange (the library's callbacks get the Exchange's body as user_data, alive as
// long as the Exchange is in its client's live set).
//
// Backpressure: the body is in the library's callback mode, and on_data pauses after
// every piece (returns 0). A pull resumes delivery for one piece, which settles the
// pull's promise. So nothing is read ahead of the reader: what an unread body holds is
// the library's allowance, plus at most one piece kept here when a piece came with
// no pull waiting (a delivery that was already queued). Callback mode starts at the
// first pull, so a body nobody reads never leaves the library.

#include <node_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/sluice.h"

namespace sluice_node {

class Exchange;

class ResponseBody {
 public:
  explicit ResponseBody(Exchange& exchange) : exchange_(exchange) {}
  ~ResponseBody();
  ResponseBody(const ResponseBody&) = delete;
  ResponseBody& operator=(const ResponseBody&) = delete;

  /// The response whose body this is (owned from now on).
  void attach(sluice_response* response) noexcept { response_ = response; }
  bool attached() const noexcept { return response_ != nullptr; }
  /// The promise of the next piece: a Uint8Array, or null at the end; rejects with
  /// the body's error. One pull at a time.
  napi_value pull(napi_env env);
  /// Nobody will read: delivery drains without JS (pieces are dropped), so that the
  /// end arrives and the exchange retires. A body never started is just dropped.
  void abandon() noexcept;
  /// Nothing more will come from the library for this body.
  bool finished() const noexcept { return ended_ || (!started_ && (dropped_ || !response_)); }
  /// A body that was never started is given up (the response is freed).
  void drop() noexcept;
  /// Fails a waiting pull (the request failed or the client closed under it).
  void fail_pull(sluice_code code, std::string_view message) noexcept;

 private:
  static int on_data(void* user_data, const std::uint8_t* data, std::size_t len) noexcept;
  static void on_end(void* user_data, sluice_code code) noexcept;
  int take_piece(const std::uint8_t* data, std::size_t len) noexcept;
  void take_end(sluice_code code) noexcept;
  void start_or_resume(napi_env env) noexcept;
  void settle_with_end() noexcept;
  void settle(bool resolve, napi_value value) noexcept;

  Exchange& exchange_;
  sluice_response* response_ = nullptr;
  napi_deferred pull_ = nullptr;  // while a pull waits
  bool started_ = false;          // callback mode is on
  bool ended_ = false;            // on_end ran
  bool dropped_ = false;
  bool abandoned_ = false;
  sluice_code end_code_ = SLUICE_OK;
  std::string end_message_;
  bool holding_ = false;  // a piece came with no pull waiting
  std::vector<std::uint8_t> held_;
};

}  // namespace sluice_node
