// ResponseSummary::of: a Response's head and connection facts, copied (see
// sluice/response.hpp). Pure; any thread.

#include "sluice/response.hpp"

namespace sluice {

ResponseSummary ResponseSummary::of(const Response& response) {
  ResponseSummary summary;
  summary.status = response.status;
  summary.headers = response.headers;
  summary.version = response.version;
  summary.effective_url = response.effective_url;
  summary.redirects = response.redirects;
  summary.connects = response.connects;
  summary.timing = response.timing;
  summary.remote_ip = response.remote_ip;
  summary.remote_port = response.remote_port;
  summary.local_ip = response.local_ip;
  summary.local_port = response.local_port;
  summary.tls_verify_result = response.tls_verify_result;
  return summary;
}

}  // namespace sluice
