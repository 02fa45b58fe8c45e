// Free helpers of the test server: building responses, request-head parsing, the
// body generator and digest that large-body tests compare with, and the polling wait
// for states the code under test reports only when asked.

#include <openssl/evp.h>
#include <zlib.h>

#include <charconv>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "support/server_connection.hpp"
#include "support/test_server.hpp"

namespace sluice::test {
namespace {

const char* reason_phrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 416: return "Range Not Satisfiable";
    case 421: return "Misdirected Request";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Status";
  }
}

// 1xx, 204 and 304 carry no body, so a Content-Length would misdescribe them.
bool status_has_body(int status) { return status >= 200 && status != 204 && status != 304; }

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::uint64_t splitmix64(std::uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

bool parse_request_line(std::string_view line, ReceivedRequest& request) {
  std::size_t first = line.find(' ');
  std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos || first == 0 || second == first + 1) return false;
  request.method = std::string(line.substr(0, first));
  request.target = std::string(line.substr(first + 1, second - first - 1));
  request.version = std::string(line.substr(second + 1));
  return request.version.rfind("HTTP/", 0) == 0;
}

// The last transfer coding decides the framing (RFC 9112 section 6.3).
bool is_chunked(const Headers& headers) {
  std::vector<std::string_view> values = headers.get_all("Transfer-Encoding");
  if (values.empty()) return false;
  std::string_view last = values.back();
  std::size_t comma = last.rfind(',');
  if (comma != std::string_view::npos) last = last.substr(comma + 1);
  return iequals(trim_ows(last), "chunked");
}

}  // namespace

std::string http_response(int status, std::string_view body,
                          const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
  bool framed = false;
  for (const auto& [name, value] : headers) {
    if (iequals(name, "Content-Length") || iequals(name, "Transfer-Encoding")) framed = true;
  }
  // A caller that frames the body itself (or lies about it on purpose) wins.
  if (!framed && status_has_body(status)) {
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  for (const auto& [name, value] : headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  out += body;
  return out;
}

std::string pseudo_random_bytes(std::size_t size, std::uint32_t seed) {
  std::string out(size, '\0');
  std::uint64_t state = seed;
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t word = splitmix64(state);
    std::memcpy(out.data() + i, &word, 8);
  }
  if (i < size) {
    std::uint64_t word = splitmix64(state);
    std::memcpy(out.data() + i, &word, size - i);
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("test support: OpenSSL EVP_Digest(SHA-256) failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

namespace detail {

std::optional<ReceivedRequest> parse_request_head(std::string_view head) {
  ReceivedRequest request;
  std::size_t line_end = head.find("\r\n");
  if (!parse_request_line(head.substr(0, line_end), request)) return std::nullopt;
  while (line_end != std::string_view::npos) {
    std::size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    std::string_view line = head.substr(start, line_end - start);
    if (line.empty()) continue;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    request.headers.add(std::string(line.substr(0, colon)),
                        std::string(trim_ows(line.substr(colon + 1))));
  }
  request.chunked = is_chunked(request.headers);
  return request;
}

std::optional<std::uint64_t> parse_chunk_size(std::string_view line) {
  std::size_t semicolon = line.find(';');
  std::string_view digits = trim_ows(line.substr(0, semicolon));
  std::uint64_t size = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), size, 16);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return size;
}

std::optional<std::uint64_t> content_length_of(const ReceivedRequest& request) {
  std::optional<std::string_view> value = request.headers.get("Content-Length");
  if (!value) return 0;
  std::uint64_t length = 0;
  auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), length);
  if (value->empty() || ec != std::errc() || end != value->data() + value->size()) {
    return std::nullopt;
  }
  return length;
}

}  // namespace detail
std::string gzip(std::string_view input) {
  z_stream stream{};
  if (deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("gzip: deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, input.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int finished = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (finished != Z_STREAM_END) throw std::runtime_error("gzip: deflate did not finish");
  return out;
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds deadline) {
  const auto give_up = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a poll interval, not a wait
  }
}

}  // namespace sluice::test
