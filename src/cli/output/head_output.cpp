#include "cli/output/head_output.hpp"

namespace sluice::cli {

std::string response_head_text(const Response& response) {
  return response_head_text(response.version, response.status, response.headers);
}

std::string response_head_text(HttpVersion version, int status, const Headers& headers) {
  std::string out = "HTTP/";
  out.append(to_string(version)).append(" ").append(std::to_string(status));
  out.append("\r\n");
  for (const Header& header : headers) {
    out.append(header.name).append(": ").append(header.value).append("\r\n");
  }
  out.append("\r\n");
  return out;
}

}  // namespace sluice::cli
