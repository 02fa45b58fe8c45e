#include "cli/output/verbose.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <optional>
#include <type_traits>
#include <variant>

namespace sluice::cli {
namespace {

std::optional<std::uint64_t> file_size(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(info.st_size);
}

}  // namespace

std::optional<std::uint64_t> request_body_length(const RequestBody& body) {
  return std::visit(
      [](const auto& value) -> std::optional<std::uint64_t> {
        using Body = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<Body, BytesBody>) {
          return value.bytes.size();
        } else if constexpr (std::is_same_v<Body, FileBody>) {
          return file_size(value.path);
        } else if constexpr (std::is_same_v<Body, StreamBody>) {
          return value.length;
        } else if constexpr (std::is_same_v<Body, LentBody>) {
          return value.bytes().size();
        } else if constexpr (std::is_same_v<Body, PartsBody>) {
          std::uint64_t total = 0;
          for (const auto& part : value.parts) {
            const auto* bytes = std::get_if<BytesBody>(&part);
            const auto size = bytes ? std::optional<std::uint64_t>(bytes->bytes.size())
                                    : file_size(std::get<FileBody>(part).path);
            if (!size) return std::nullopt;
            total += *size;
          }
          return total;
        } else {
          return std::nullopt;
        }
      },
      body);
}

namespace {

void add_line(std::string& out, std::string_view prefix, std::string_view name,
              std::string_view value) {
  out.append(prefix).append(name).append(": ").append(value).append("\n");
}

}  // namespace

std::string describe_request_head(const Url& url, const Response& response, VersionPolicy asked) {
  // After redirects the head shown is the last hop's, to the URL that answered.
  Result<Url> answered =
      response.effective_url.empty() ? Result<Url>(url) : Url::parse(response.effective_url);
  const Url& target = answered ? *answered : url;
  // A 1.0 answer does not change the request: it said 1.1, unless 1.0 was asked for.
  const bool http1 =
      response.version == HttpVersion::http1_0 || response.version == HttpVersion::http1_1;
  const HttpVersion sent = !http1                            ? response.version
                           : asked == VersionPolicy::http1_0 ? HttpVersion::http1_0
                                                             : HttpVersion::http1_1;
  std::string out;
  out.append("> ")
      .append(response.request_method)
      .append(" ")
      .append(target.target())
      .append(" HTTP/")
      .append(to_string(sent))
      .append("\n");
  const Headers& fields = response.request_headers;
  if (!fields.contains("Host")) add_line(out, "> ", "Host", target.authority());
  for (const Header& header : fields) add_line(out, "> ", header.name, header.value);
  if (response.request_body_length) {
    add_line(out, "> ", "Content-Length", std::to_string(*response.request_body_length));
  }
  out.append(">\n");
  return out;
}

std::string describe_response_head(const Response& response) {
  std::string out;
  if (response.redirects > 0) {
    out.append("* followed ")
        .append(std::to_string(response.redirects))
        .append(response.redirects == 1 ? " redirect" : " redirects")
        .append("; this response is from ")
        .append(response.effective_url)
        .append("\n");
  }
  out.append("< HTTP/")
      .append(to_string(response.version))
      .append(" ")
      .append(std::to_string(response.status))
      .append("\n");
  for (const Header& header : response.headers) add_line(out, "< ", header.name, header.value);
  out.append("<\n");
  return out;
}

namespace {
// Bytes as a person reads them: "0 B", "812 B", "64.0 KiB", "1.5 MiB".
std::string human_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* unit = "KiB";
  double value = static_cast<double>(bytes) / 1024.0;
  if (value >= 1024.0) {
    value /= 1024.0;
    unit = "MiB";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, unit);
  return text;
}
}  // namespace

std::string describe_client_stats(const ClientStats& stats) {
  return "* memory: " + std::to_string(stats.in_flight) + " in flight, " +
         std::to_string(stats.paused_receivers) + " paused, " + human_bytes(stats.staged_bytes) +
         " staged, " + human_bytes(stats.retained_scratch_bytes) + " scratch kept, " +
         human_bytes(stats.request_body_bytes_held) + " of request bodies held, " +
         std::to_string(stats.connections) + " connection" + (stats.connections == 1 ? "" : "s") +
         ", sweep freed " + std::to_string(stats.sweep_releases) + " (" +
         human_bytes(stats.sweep_bytes_released) + "), " + human_bytes(stats.allowance_bytes) +
         " of allowances granted\n" + "* tls: " + std::to_string(stats.tls_full_handshakes) +
         " full handshake" + (stats.tls_full_handshakes == 1 ? "" : "s") + ", " +
         std::to_string(stats.tls_resumed_handshakes) + " resumed" +
         (stats.quic_full_handshakes + stats.quic_resumed_handshakes == 0
              ? std::string()
              : "; h3: " + std::to_string(stats.quic_full_handshakes) + " full, " +
                    std::to_string(stats.quic_resumed_handshakes) + " resumed") +
         (stats.quic_early_requests == 0
              ? std::string()
              : "; 0-RTT: " + std::to_string(stats.quic_early_requests) + " request" +
                    (stats.quic_early_requests == 1 ? "" : "s") + " sent early, " +
                    std::to_string(stats.quic_early_data_accepted) + " accepted, " +
                    std::to_string(stats.quic_early_data_rejected) + " refused") +
         "\n";
}

}  // namespace sluice::cli
