#pragma once
// -v: the request and response heads as curl prints them ("> " and "< " lines on
// stderr), built from the Request sent and the Response received, not from the wire;
// and "* memory:" lines with what the Client holds.
// Ownership: pure functions returning text; the caller prints it (main thread).

#include <cstdint>
#include <optional>
#include <string>

#include "sluice/client.hpp"
#include "sluice/request.hpp"
#include "sluice/response.hpp"
#include "sluice/url.hpp"

namespace sluice::cli {

/// The length the library announces for a body it knows the size of (Content-Length);
/// nullopt for a stream without one, or a file that cannot be read.
std::optional<std::uint64_t> request_body_length(const RequestBody& body);

/// What -v shows of a request besides its header fields, kept before the Request is
/// moved into fetch(): the head is printed once the response says which version
/// carried it and which fields went with it (Response::request_headers).
struct SentRequest {
  std::string method;
  std::optional<std::uint64_t> body_length;
};
SentRequest sent_request_of(const Request& request);

/// "> GET /path HTTP/2" (the version that carried it, the target of the last hop),
/// "> Host: ...", the fields the Client sent (the Request's, its User-Agent, Accept,
/// Authorization and the cookie jar's Cookie among them), Content-Length, and a lone ">".
std::string describe_request_head(const SentRequest& request, const Url& url,
                                  const Response& response);

/// "* " lines about redirects followed, then "< HTTP/1.1 200", the response
/// headers and a lone "<".
std::string describe_response_head(const Response& response);

/// "* memory: ..." one line from Client::stats(): requests in flight, paused
/// receivers, bytes staged for readers, empty scratch kept, request body copies
/// held, connections, and what the sweep freed so far.
std::string describe_client_stats(const ClientStats& stats);

}  // namespace sluice::cli
