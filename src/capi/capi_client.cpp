// The C API: versions, codes and messages, client options, the client and its stats.
#include <chrono>
#include <cstring>
#include <string_view>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"
#include "sluice/version.hpp"

using namespace sluice;
using namespace sluice::capi;

static_assert(std::string_view(SLUICE_VERSION_STRING) == kVersion,
              "sluice.h and sluice/version.hpp must name the same version");

extern "C" {

const char* sluice_version(void) { return SLUICE_VERSION_STRING; }
unsigned sluice_version_num(void) { return SLUICE_VERSION_NUM; }

const char* sluice_code_name(int code) {
  if (code == SLUICE_OK) return "ok";
  if (code == SLUICE_WOULD_BLOCK) return "would_block";
  return to_string(static_cast<ErrorCode>(code));
}

const char* sluice_category_name(int code) {
  if (code < 100 || std::strcmp(sluice_code_name(code), "unknown") == 0) return "";
  return to_string(category_of(static_cast<ErrorCode>(code)));
}

const char* sluice_last_error(void) { return last_error_message(); }

sluice_code sluice_client_options_new(sluice_client_options** out) {
  if (out == nullptr) return invalid("sluice_client_options_new", "out is NULL");
  *out = nullptr;
  return capi_call("sluice_client_options_new", [&] {
    *out = new sluice_client_options();
    return ok();
  });
}

void sluice_client_options_free(sluice_client_options* options) {
  if (usable(options)) delete options;
}

sluice_code sluice_client_options_set_trace(sluice_client_options* options, sluice_trace_cb trace,
                                            void* user_data) {
  return with_options("sluice_client_options_set_trace", options, [&](ClientOptions& o) {
    if (trace == nullptr) {
      o.trace = nullptr;
    } else {
      o.trace = [trace, user_data](std::string_view line) {
        trace(user_data, line.data(), line.size());
      };
    }
    return ok();
  });
}

sluice_code sluice_client_new(const sluice_client_options* options, sluice_client** out) {
  if (out == nullptr) return invalid("sluice_client_new", "out is NULL");
  *out = nullptr;
  if (options != nullptr && !usable(options)) {
    return invalid("sluice_client_new", "options is not a live options handle");
  }
  return capi_call("sluice_client_new", [&] {
    auto client = Client::create(options != nullptr ? options->options : ClientOptions{});
    if (!client) return fail(client.error());
    *out = new sluice_client(std::move(*client));
    return ok();
  });
}

void sluice_client_free(sluice_client* client) {
  if (usable(client)) delete client;
}

sluice_code sluice_client_save_state(sluice_client* client) {
  if (!usable(client))
    return invalid("sluice_client_save_state", "client is NULL or not a live client");
  return capi_call("sluice_client_save_state", [&] {
    auto saved = client->client.save_state();
    return saved ? ok() : fail(saved.error());
  });
}

int sluice_client_dispatch_fd(const sluice_client* client) {
  return usable(client) ? client->client.dispatch_fd() : -1;
}

sluice_code sluice_client_dispatch(sluice_client* client, size_t* ran) {
  if (ran != nullptr) *ran = 0;
  if (!usable(client))
    return invalid("sluice_client_dispatch", "client is NULL or not a live client");
  // The callbacks are C functions (they cannot throw); a C++ host's exception is
  // turned into a code like any other.
  return capi_call("sluice_client_dispatch", [&] {
    const std::size_t n = client->client.dispatch();
    if (ran != nullptr) *ran = n;
    return ok();
  });
}

sluice_code sluice_client_get_stats(sluice_client* client, sluice_client_stats* out,
                                    size_t out_size) {
  if (!usable(client))
    return invalid("sluice_client_get_stats", "client is NULL or not a live client");
  if (out == nullptr) return invalid("sluice_client_get_stats", "out is NULL");
  return capi_call("sluice_client_get_stats", [&] {
    const ClientStats stats = client->client.stats();
    sluice_client_stats all{};
    all.in_flight = stats.in_flight;
    all.paused_receivers = stats.paused_receivers;
    all.staged_bytes = stats.staged_bytes;
    all.retained_scratch_bytes = stats.retained_scratch_bytes;
    all.request_body_bytes_held = stats.request_body_bytes_held;
    all.connections = stats.connections;
    all.sweep_releases = stats.sweep_releases;
    all.sweep_bytes_released = stats.sweep_bytes_released;
    all.budget_waits = stats.budget_waits;
    all.allowance_bytes = stats.allowance_bytes;
    all.dns_queries = stats.dns_queries;
    all.dns_cache_hits = stats.dns_cache_hits;
    all.tls_full_handshakes = stats.tls_full_handshakes;
    all.tls_resumed_handshakes = stats.tls_resumed_handshakes;
    all.tls_handshake_cpu_ns = stats.tls_handshake_cpu_ns;
    all.quic_full_handshakes = stats.quic_full_handshakes;
    all.quic_resumed_handshakes = stats.quic_resumed_handshakes;
    all.quic_early_data_accepted = stats.quic_early_data_accepted;
    all.quic_early_data_rejected = stats.quic_early_data_rejected;
    all.quic_early_requests = stats.quic_early_requests;
    all.owned_upload_bytes = stats.owned_upload_bytes;
    all.owned_upload_waits = stats.owned_upload_waits;
    // A caller built against an older, shorter struct gets the fields it knows.
    std::memcpy(out, &all, out_size < sizeof all ? out_size : sizeof all);
    return ok();
  });
}

}  // extern "C"
