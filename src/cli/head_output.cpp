#include "cli/head_output.hpp"

namespace sluice::cli {

std::string response_head_text(const Response& response) {
  std::string out = "HTTP/";
  out.append(to_string(response.version)).append(" ").append(std::to_string(response.status));
  out.append("\r\n");
  for (const Header& header : response.headers) {
    out.append(header.name).append(": ").append(header.value).append("\r\n");
  }
  out.append("\r\n");
  return out;
}

}  // namespace sluice::cli
