// The C API: where a response's connection went and when each of its steps happened
// (ResponseTiming as nanoseconds from the request's start).
#include <chrono>
#include <optional>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"

using namespace sluice;
using namespace sluice::capi;

namespace {

using TimePoint = ResponseTiming::TimePoint;

std::optional<TimePoint> step_of(const sluice_response& response, sluice_timing_step step) {
  const ResponseTiming& t = response.response.timing;
  switch (step) {
    case SLUICE_TIMING_FETCH_START: return t.fetch_start;
    case SLUICE_TIMING_DNS_START: return t.dns_start;
    case SLUICE_TIMING_DNS_END: return t.dns_end;
    case SLUICE_TIMING_CONNECT_START: return t.connect_start;
    case SLUICE_TIMING_CONNECT_END: return t.connect_end;
    case SLUICE_TIMING_TLS_START: return t.tls_start;
    case SLUICE_TIMING_TLS_END: return t.tls_end;
    case SLUICE_TIMING_REQUEST_START: return t.request_start;
    case SLUICE_TIMING_RESPONSE_START: return t.response_start;
    case SLUICE_TIMING_RESPONSE_END:
      // In callback mode the body went to the callbacks: they know its end.
      return response.callbacks ? response.callbacks->ended_at()
                                : response.response.body.ended_at();
    case SLUICE_TIMING_MAX_: break;
  }
  return std::nullopt;
}

bool known_step(sluice_timing_step step) {
  return step >= SLUICE_TIMING_FETCH_START && step <= SLUICE_TIMING_RESPONSE_END;
}

// One end of the response's connection into the caller's pointers.
sluice_code address_out(const char* function, const sluice_response* response, bool local,
                        const char** ip, size_t* len, uint16_t* port) {
  if (!usable(response)) return invalid(function, "response is not live");
  if (ip == nullptr || len == nullptr || port == nullptr) {
    return invalid(function, "ip, len or port is NULL");
  }
  const Response& r = response->response;
  const std::string& text = local ? r.local_ip : r.remote_ip;
  *ip = text.c_str();
  *len = text.size();
  *port = local ? r.local_port : r.remote_port;
  return ok();
}

}  // namespace

extern "C" {

sluice_code sluice_response_remote_address(const sluice_response* response, const char** ip,
                                           size_t* len, uint16_t* port) {
  return address_out("sluice_response_remote_address", response, /*local=*/false, ip, len, port);
}

sluice_code sluice_response_local_address(const sluice_response* response, const char** ip,
                                          size_t* len, uint16_t* port) {
  return address_out("sluice_response_local_address", response, /*local=*/true, ip, len, port);
}

sluice_code sluice_response_timing(const sluice_response* response, sluice_timing_step step,
                                   int64_t* ns) {
  if (!usable(response)) return invalid("sluice_response_timing", "response is not live");
  if (ns == nullptr) return invalid("sluice_response_timing", "ns is NULL");
  if (!known_step(step)) {
    return invalid("sluice_response_timing", "step is not a sluice_timing_step");
  }
  const std::optional<TimePoint> at = step_of(*response, step);
  *ns = at ? std::chrono::duration_cast<std::chrono::nanoseconds>(*at -
                                                                  response->response.timing.start)
                 .count()
           : -1;
  return ok();
}

int sluice_response_connection_reused(const sluice_response* response) {
  return usable(response) && response->response.timing.connection_reused ? 1 : 0;
}

}  // extern "C"
