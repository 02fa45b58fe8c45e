// WireDump: see wire_dump.hpp.

#include "cli/output/wire_dump.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace sluice::cli {
namespace {

constexpr std::size_t kHexWidth = 16;
constexpr std::size_t kAsciiWidth = 64;

char printable(std::byte b) {
  const auto c = static_cast<unsigned char>(b);
  return c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '.';
}

bool crlf_at(std::span<const std::byte> bytes, std::size_t at) {
  return at + 1 < bytes.size() && bytes[at] == std::byte{'\r'} && bytes[at + 1] == std::byte{'\n'};
}

void offset(std::string& out, std::size_t at) {
  char text[24];
  std::snprintf(text, sizeof text, "%04zx: ", at);
  out.append(text);
}

}  // namespace

std::string dump_bytes(std::span<const std::byte> bytes, DumpStyle style) {
  std::string out;
  if (style == DumpStyle::hex) {
    static constexpr char digits[] = "0123456789abcdef";
    for (std::size_t at = 0; at < bytes.size(); at += kHexWidth) {
      offset(out, at);
      for (std::size_t i = 0; i < kHexWidth; ++i) {
        if (at + i < bytes.size()) {
          const auto c = static_cast<unsigned char>(bytes[at + i]);
          out.push_back(digits[c >> 4]);
          out.push_back(digits[c & 0xf]);
          out.push_back(' ');
        } else {
          out.append("   ");
        }
      }
      for (std::size_t i = 0; i < kHexWidth && at + i < bytes.size(); ++i) {
        out.push_back(printable(bytes[at + i]));
      }
      out.push_back('\n');
    }
    return out;
  }
  // ASCII: a CR LF ends the line (and is not shown), as curl's --trace-ascii does;
  // one right after a full line is taken with it rather than making an empty line.
  std::size_t at = 0;
  while (at < bytes.size()) {
    offset(out, at);
    std::size_t shown = 0;
    while (at < bytes.size() && shown < kAsciiWidth && !crlf_at(bytes, at)) {
      out.push_back(printable(bytes[at++]));
      ++shown;
    }
    if (crlf_at(bytes, at)) at += 2;
    out.push_back('\n');
  }
  return out;
}

std::string dump_chunk(const WireChunk& chunk, DumpStyle style) {
  char title[96];
  std::snprintf(title, sizeof title, "%s, %zu bytes (0x%zx)",
                chunk.direction == WireDirection::sent ? "=> Send data" : "<= Recv data",
                chunk.bytes.size(), chunk.bytes.size());
  std::string out = title;
  // HTTP/3 multiplexes streams in one connection: say whose bytes these are.
  if (chunk.stream >= 0) out += ", stream " + std::to_string(chunk.stream);
  out += '\n';
  return out + dump_bytes(chunk.bytes, style);
}

std::string dump_info(std::string_view line) {
  std::string out = "== Info: ";
  out.append(line);
  out.push_back('\n');
  return out;
}

std::string trace_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[32];
  std::snprintf(text, sizeof text, "%02d:%02d:%02d.%06lld ", local.tm_hour, local.tm_min,
                local.tm_sec, static_cast<long long>(micros));
  return text;
}

}  // namespace sluice::cli
