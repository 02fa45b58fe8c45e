#pragma once
// Exchange: one fetch, from its send to the end of its response body. JS thread only.
//
// Owned by shared_ptr: by its JS handle (while script can reach it) and by its
// NodeClient's live set from the send until nothing more will come from the library
// for it (the head failed, the body ended, or a body that was never started was
// dropped). So the raw `this` given to the library as user_data is alive whenever a
// callback runs. It holds its NodeClient, so a handle that outlives its Client (the
// Client closed or collected) still finds a closed client, never freed memory.

#include <node_api.h>

#include <memory>
#include <string_view>

#include "response_body.hpp"
#include "sluice/sluice.h"
#include "upload.hpp"

namespace sluice_node {

class NodeClient;

class Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  explicit Exchange(std::shared_ptr<NodeClient> client);
  ~Exchange();
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  /// Sends `request` (with `writer` as its streamed body, or NULL) and returns the
  /// promise of the head: {status, version, url, redirects, headers: [name, value,
  /// ...]}, or a rejection with the library's error. Throws when the library refuses
  /// the request at once.
  napi_value send(napi_env env, sluice_request* request, sluice_body_writer* writer);
  /// Cancels the request in the library (any stage); what waits fails with
  /// SLUICE_E_CANCELLED. Idempotent.
  void cancel(std::string_view reason) noexcept;
  /// The JS handle was collected: nobody will read; end what is left.
  void abandon() noexcept;
  /// Gives up a body that will not be read (a HEAD or a 204), without a cancel.
  void drop_body() noexcept;

  ResponseBody& body() noexcept { return body_; }
  Upload& upload() noexcept { return upload_; }
  NodeClient& client() noexcept { return *client_; }
  napi_env env() const noexcept { return env_; }
  /// Retires from the live set once nothing more will come from the library.
  void retire_if_done() noexcept;
  /// The request ended in failure: a waiting upload hears it too.
  void fail_waiters(sluice_code code, std::string_view message) noexcept;

 private:
  static void on_response(void* user_data, sluice_code code, sluice_response* response) noexcept;
  void settle_head(sluice_code code, sluice_response* response) noexcept;
  napi_value head_object(napi_env env, sluice_response* response);

  std::shared_ptr<NodeClient> client_;
  napi_env env_;
  sluice_pending* pending_ = nullptr;
  napi_deferred head_ = nullptr;  // while the head is awaited
  bool head_settled_ = false;
  bool cancelled_ = false;
  ResponseBody body_;
  Upload upload_;
};

}  // namespace sluice_node
