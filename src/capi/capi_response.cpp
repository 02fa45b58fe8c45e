// The C API: sending, waiting, responses, their headers and reading their bodies.
#include <chrono>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"

using namespace sluice;
using namespace sluice::capi;

namespace {

sluice_code take_response(Result<Response> result, sluice_response** out) {
  if (!result) return fail(result.error());
  auto handle = std::make_unique<sluice_response>(std::move(*result));
  handle->header_list.assign(handle->response.headers.begin(), handle->response.headers.end());
  *out = handle.release();
  return ok();
}

void put_text(const std::string& text, const char** data, std::size_t* len) {
  *data = text.c_str();
  *len = text.size();
}

// Shared by next and next_timeout: lends the chunk through the handle.
sluice_code lend(sluice_response* response, BodyChunk chunk, const uint8_t** data,
                 std::size_t* len) {
  response->lent = std::move(chunk);
  const auto bytes = response->lent.bytes();
  *data = reinterpret_cast<const uint8_t*>(bytes.data());
  *len = bytes.size();
  return ok();
}

// A response whose body went to callbacks has nothing left to read.
bool readable(const sluice_response* response) { return !response->callbacks.has_value(); }

// read and read_timeout: copy into `buffer`, waiting up to `timeout` (nullopt:
// forever); SLUICE_WOULD_BLOCK when nothing came in time.
sluice_code read_body(const char* function, sluice_response* response, void* buffer,
                      std::size_t len, std::optional<std::chrono::milliseconds> timeout,
                      std::size_t* n) {
  if (!usable(response)) return invalid(function, "response is not live");
  if (!readable(response)) return invalid(function, "the body went to on_data callbacks");
  if (n == nullptr || buffer == nullptr || len == 0) {
    return invalid(function, "buffer or n is NULL, or len is 0");
  }
  *n = 0;
  return capi_call(function, [&] {
    response->lent.release();
    const std::span into(static_cast<std::byte*>(buffer), len);
    if (!timeout) {
      auto got = response->response.body.read(into);
      if (!got) return fail(got.error());
      *n = *got;
      return ok();
    }
    auto got = response->response.body.read_for(into, *timeout);
    if (!got) return fail(got.error());
    if (!*got) return SLUICE_WOULD_BLOCK;
    *n = **got;
    return ok();
  });
}

// next and next_timeout: lend the next staged run, waiting as read_body does.
sluice_code next_body(const char* function, sluice_response* response, std::size_t max,
                      std::optional<std::chrono::milliseconds> timeout, const uint8_t** data,
                      std::size_t* len) {
  if (!usable(response)) return invalid(function, "response is not live");
  if (!readable(response)) return invalid(function, "the body went to on_data callbacks");
  if (data == nullptr || len == nullptr) return invalid(function, "data or len is NULL");
  *data = nullptr;
  *len = 0;
  return capi_call(function, [&] {
    response->lent.release();
    const std::size_t most = max == 0 ? SIZE_MAX : max;
    if (!timeout) {
      auto chunk = response->response.body.next(most);
      if (!chunk) return fail(chunk.error());
      return lend(response, std::move(*chunk), data, len);
    }
    auto chunk = response->response.body.next_for(*timeout, most);
    if (!chunk) return fail(chunk.error());
    if (!*chunk) return SLUICE_WOULD_BLOCK;
    return lend(response, std::move(**chunk), data, len);
  });
}

const Headers& trailers_of(sluice_response* response) {
  // Trailers are known once the body ended; before that the list stays empty and is
  // asked again next time.
  if (!response->trailers) {
    Headers got =
        response->callbacks ? response->callbacks->trailers() : response->response.body.trailers();
    if (got.empty()) {
      static const Headers none;
      return none;
    }
    response->trailers = std::move(got);
  }
  return *response->trailers;
}

}  // namespace

extern "C" {

sluice_code sluice_client_send(sluice_client* client, const sluice_request* request,
                               sluice_pending** out) {
  if (out == nullptr) return invalid("sluice_client_send", "out is NULL");
  *out = nullptr;
  if (!usable(client)) return invalid("sluice_client_send", "client is NULL or not a live client");
  if (!usable(request))
    return invalid("sluice_client_send", "request is NULL or not a live request");
  return capi_call("sluice_client_send", [&] {
    auto handle = std::make_unique<sluice_pending>();
    handle->pending = client->client.send(request->request);
    *out = handle.release();
    return ok();
  });
}

sluice_code sluice_client_send_cb(sluice_client* client, const sluice_request* request,
                                  sluice_response_cb done, void* user_data, sluice_pending** out) {
  if (out != nullptr) *out = nullptr;
  if (!usable(client))
    return invalid("sluice_client_send_cb", "client is NULL or not a live client");
  if (!usable(request))
    return invalid("sluice_client_send_cb", "request is NULL or not a live request");
  if (done == nullptr) return invalid("sluice_client_send_cb", "done is NULL");
  return capi_call("sluice_client_send_cb", [&] {
    auto handle = std::make_unique<sluice_pending>();
    handle->callback_mode = true;
    handle->handle =
        client->client.send(request->request).then([done, user_data](Result<Response> result) {
          sluice_response* response = nullptr;
          // The message is this thread's last error while `done` runs.
          const sluice_code code = capi_call(
              "sluice_client_send_cb", [&] { return take_response(std::move(result), &response); });
          done(user_data, code, response);
        });
    if (out != nullptr) *out = handle.release();
    return ok();
  });
}

sluice_code sluice_pending_wait(sluice_pending* pending, sluice_response** out) {
  if (out == nullptr) return invalid("sluice_pending_wait", "out is NULL");
  *out = nullptr;
  if (!usable(pending)) return invalid("sluice_pending_wait", "pending is NULL or not live");
  if (pending->callback_mode) {
    return invalid("sluice_pending_wait", "this request answers through its callback");
  }
  if (pending->answered) return invalid("sluice_pending_wait", "this request was already answered");
  return capi_call("sluice_pending_wait", [&] {
    pending->answered = true;
    return take_response(pending->pending.wait(), out);
  });
}

sluice_code sluice_pending_wait_timeout(sluice_pending* pending, uint32_t timeout_ms,
                                        sluice_response** out) {
  if (out == nullptr) return invalid("sluice_pending_wait_timeout", "out is NULL");
  *out = nullptr;
  if (!usable(pending))
    return invalid("sluice_pending_wait_timeout", "pending is NULL or not live");
  if (pending->callback_mode) {
    return invalid("sluice_pending_wait_timeout", "this request answers through its callback");
  }
  if (pending->answered) {
    return invalid("sluice_pending_wait_timeout", "this request was already answered");
  }
  return capi_call("sluice_pending_wait_timeout", [&] {
    auto decided = pending->pending.wait_for(std::chrono::milliseconds(timeout_ms));
    if (!decided) return SLUICE_WOULD_BLOCK;
    pending->answered = true;
    return take_response(std::move(*decided), out);
  });
}

sluice_code sluice_pending_cancel(sluice_pending* pending, const char* reason, size_t reason_len) {
  if (!usable(pending)) return invalid("sluice_pending_cancel", "pending is NULL or not live");
  std::string_view why;
  if (!text_argument(reason, reason_len, why)) {
    return invalid("sluice_pending_cancel", "reason is NULL or holds a NUL byte");
  }
  return capi_call("sluice_pending_cancel", [&] {
    if (pending->callback_mode) {
      pending->handle.cancel(std::string(why));
    } else {
      pending->pending.cancel(std::string(why));
    }
    return ok();
  });
}

void sluice_pending_free(sluice_pending* pending) {
  if (usable(pending)) delete pending;
}

sluice_code sluice_client_fetch(sluice_client* client, const sluice_request* request,
                                sluice_response** out) {
  if (out == nullptr) return invalid("sluice_client_fetch", "out is NULL");
  *out = nullptr;
  if (!usable(client)) return invalid("sluice_client_fetch", "client is NULL or not a live client");
  if (!usable(request))
    return invalid("sluice_client_fetch", "request is NULL or not a live request");
  return capi_call("sluice_client_fetch",
                   [&] { return take_response(client->client.fetch(request->request), out); });
}

void sluice_response_free(sluice_response* response) {
  if (usable(response)) delete response;
}

int sluice_response_status(const sluice_response* response) {
  return usable(response) ? response->response.status : 0;
}

int sluice_response_http_version(const sluice_response* response) {
  if (!usable(response)) return 0;
  switch (response->response.version) {
    case HttpVersion::http1_0: return 10;
    case HttpVersion::http1_1: return 11;
    case HttpVersion::http2: return 20;
    case HttpVersion::http3: return 30;
  }
  return 0;
}

sluice_code sluice_response_effective_url(const sluice_response* response, const char** url,
                                          size_t* len) {
  if (!usable(response)) return invalid("sluice_response_effective_url", "response is not live");
  if (url == nullptr || len == nullptr) {
    return invalid("sluice_response_effective_url", "url or len is NULL");
  }
  put_text(response->response.effective_url, url, len);
  return ok();
}

int sluice_response_redirects(const sluice_response* response) {
  return usable(response) ? response->response.redirects : 0;
}

int sluice_response_connects(const sluice_response* response) {
  return usable(response) ? response->response.connects : 0;
}

size_t sluice_response_header_count(const sluice_response* response) {
  return usable(response) ? response->header_list.size() : 0;
}

sluice_code sluice_response_header(const sluice_response* response, size_t index, const char** name,
                                   size_t* name_len, const char** value, size_t* value_len) {
  if (!usable(response)) return invalid("sluice_response_header", "response is not live");
  if (name == nullptr || name_len == nullptr || value == nullptr || value_len == nullptr) {
    return invalid("sluice_response_header", "an output pointer is NULL");
  }
  if (index >= response->header_list.size()) {
    return invalid("sluice_response_header", "index is past the last header");
  }
  const Header& field = response->header_list[index];
  put_text(field.name, name, name_len);
  put_text(field.value, value, value_len);
  return ok();
}

sluice_code sluice_response_header_get(const sluice_response* response, const char* name,
                                       size_t name_len, const char** value, size_t* value_len) {
  if (!usable(response)) return invalid("sluice_response_header_get", "response is not live");
  if (name == nullptr || value == nullptr || value_len == nullptr) {
    return invalid("sluice_response_header_get", "name, value or value_len is NULL");
  }
  const std::string_view wanted(name, name_len);
  for (const Header& field : response->header_list) {
    if (iequals(field.name, wanted)) {
      put_text(field.value, value, value_len);
      return ok();
    }
  }
  *value = nullptr;
  *value_len = 0;
  return ok();
}

sluice_code sluice_response_read(sluice_response* response, void* buffer, size_t len, size_t* n) {
  return read_body("sluice_response_read", response, buffer, len, std::nullopt, n);
}

sluice_code sluice_response_read_timeout(sluice_response* response, void* buffer, size_t len,
                                         uint32_t timeout_ms, size_t* n) {
  return read_body("sluice_response_read_timeout", response, buffer, len,
                   std::chrono::milliseconds(timeout_ms), n);
}

sluice_code sluice_response_next(sluice_response* response, size_t max, const uint8_t** data,
                                 size_t* len) {
  return next_body("sluice_response_next", response, max, std::nullopt, data, len);
}

sluice_code sluice_response_next_timeout(sluice_response* response, size_t max, uint32_t timeout_ms,
                                         const uint8_t** data, size_t* len) {
  return next_body("sluice_response_next_timeout", response, max,
                   std::chrono::milliseconds(timeout_ms), data, len);
}

sluice_code sluice_response_release(sluice_response* response) {
  if (!usable(response)) return invalid("sluice_response_release", "response is not live");
  response->lent.release();
  return ok();
}

sluice_code sluice_response_on_data(sluice_response* response, sluice_data_cb on_data,
                                    sluice_end_cb on_end, void* user_data) {
  if (!usable(response)) return invalid("sluice_response_on_data", "response is not live");
  if (on_data == nullptr || on_end == nullptr) {
    return invalid("sluice_response_on_data", "on_data or on_end is NULL");
  }
  if (!readable(response)) return invalid("sluice_response_on_data", "callbacks are already set");
  return capi_call("sluice_response_on_data", [&] {
    response->lent.release();
    response->callbacks =
        std::move(response->response.body)
            .on_data(
                [on_data, user_data](std::span<const std::byte> bytes) {
                  return on_data(user_data, reinterpret_cast<const uint8_t*>(bytes.data()),
                                 bytes.size()) != 0;
                },
                [on_end, user_data](Result<void> status) {
                  const sluice_code code = status ? ok() : fail(status.error());
                  on_end(user_data, code);
                });
    return ok();
  });
}

sluice_code sluice_response_resume(sluice_response* response) {
  if (!usable(response)) return invalid("sluice_response_resume", "response is not live");
  if (readable(response)) return invalid("sluice_response_resume", "the body has no callbacks");
  return capi_call("sluice_response_resume", [&] {
    response->callbacks->resume();
    return ok();
  });
}

size_t sluice_response_buffered(const sluice_response* response) {
  if (!usable(response)) return 0;
  return response->callbacks ? response->callbacks->buffered() : response->response.body.buffered();
}

uint64_t sluice_response_bytes_read(const sluice_response* response) {
  return usable(response) ? response->response.body.bytes_read() : 0;
}

uint64_t sluice_response_bytes_received(const sluice_response* response) {
  return usable(response) ? response->response.body.bytes_received() : 0;
}

size_t sluice_response_trailer_count(sluice_response* response) {
  if (!usable(response)) return 0;
  try {
    return trailers_of(response).size();
  } catch (...) {
    return 0;  // out of memory copying them: none visible, the next call tries again
  }
}

sluice_code sluice_response_trailer(sluice_response* response, size_t index, const char** name,
                                    size_t* name_len, const char** value, size_t* value_len) {
  if (!usable(response)) return invalid("sluice_response_trailer", "response is not live");
  if (name == nullptr || name_len == nullptr || value == nullptr || value_len == nullptr) {
    return invalid("sluice_response_trailer", "an output pointer is NULL");
  }
  return capi_call("sluice_response_trailer", [&] {
    const Headers& trailers = trailers_of(response);
    if (index >= trailers.size()) {
      return invalid("sluice_response_trailer", "index is past the last trailer");
    }
    const Header& field = *(trailers.begin() + static_cast<std::ptrdiff_t>(index));
    put_text(field.name, name, name_len);
    put_text(field.value, value, value_len);
    return ok();
  });
}

}  // extern "C"
