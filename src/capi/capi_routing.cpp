// The C API: where a client's connections go (ClientOptions::routing.ip_version, resolve,
// connect_to, unix_socket, dns_servers, dns_timeout, dns_cache_ttl, happy_eyeballs_delay,
// interface, local_port).
// Entries
// are checked when the client is made.
#include <chrono>
#include <string>
#include <string_view>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"

using namespace sluice;
using namespace sluice::capi;

namespace {

// Sets (or, into a list, appends) one text option, refusing NULL and NUL bytes.
template <typename Apply>
sluice_code with_text(const char* function, sluice_client_options* options, const char* data,
                      size_t len, Apply apply) {
  std::string_view text;
  if (!text_argument(data, len, text))
    return invalid(function, "the text is NULL or holds a NUL byte");
  return with_options(function, options, [&](ClientOptions& o) {
    apply(o, std::string(text));
    return ok();
  });
}

}  // namespace

extern "C" {

sluice_code sluice_client_options_set_ip_version(sluice_client_options* options, int version) {
  if (version != 0 && version != 4 && version != 6) {
    return invalid("sluice_client_options_set_ip_version", "version must be 0 (any), 4 or 6");
  }
  return with_options("sluice_client_options_set_ip_version", options, [&](ClientOptions& o) {
    o.routing.ip_version = version == 4   ? IpVersion::v4_only
                           : version == 6 ? IpVersion::v6_only
                                          : IpVersion::any;
    return ok();
  });
}

sluice_code sluice_client_options_set_local_port(sluice_client_options* options, uint16_t port,
                                                 uint16_t range) {
  if (range == 0 || std::uint32_t{port} + range - 1 > 65535) {
    return invalid("sluice_client_options_set_local_port",
                   "range must be at least 1 and port + range - 1 at most 65535");
  }
  return with_options("sluice_client_options_set_local_port", options, [&](ClientOptions& o) {
    o.routing.local_port = port;
    o.routing.local_port_range = range;
    return ok();
  });
}

}  // extern "C"
