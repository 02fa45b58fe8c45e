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

/// "> GET /path HTTP/2" (the last hop's method and target, the version that
/// carried it), "> Host: ...", the fields the Client sent (the Request's, its
/// User-Agent, Accept, Authorization and the cookie jar's Cookie among them),
/// Content-Length, and a lone ">": all as the response reports them, so after a 303
/// the GET that went, not the POST asked for.
/// `asked`: the version the request was made with (HTTP/1.0 shows on the request line).
std::string describe_request_head(const Url& url, const Response& response,
                                  VersionPolicy asked = VersionPolicy::automatic);

/// "* " lines about redirects followed, then "< HTTP/1.1 200", the response
/// headers and a lone "<".
std::string describe_response_head(const Response& response);

/// "* memory: ..." one line from Client::stats(): requests in flight, paused
/// receivers, bytes staged for readers, empty scratch kept, request body copies
/// held, connections, and what the sweep freed so far.
std::string describe_client_stats(const ClientStats& stats);

}  // namespace sluice::cli
