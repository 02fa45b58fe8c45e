#pragma once
// The response head as -i, -I and -D write it: the status line and the fields as
// received, CRLF after each, a blank line at the end, the way curl writes them. The
// status line carries no reason phrase (HTTP/2 and HTTP/3 have none, and sluice does
// not keep HTTP/1's): "HTTP/1.1 200", "HTTP/2 404".
// Pure; main thread.

#include <string>

#include "sluice/response.hpp"

namespace sluice::cli {

std::string response_head_text(const Response& response);
/// The same from its parts (a download keeps the first response's, not the Response).
std::string response_head_text(HttpVersion version, int status, const Headers& headers);

}  // namespace sluice::cli
