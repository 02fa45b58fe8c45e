#include "cli/output/json_summary.hpp"

#include <algorithm>
#include <cstdio>

#include "cli/output/utf8.hpp"

namespace sluice::cli {

std::string json_string(std::string_view text) {
  std::string out = "\"";
  char escaped[8];
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = utf8_sequence_length(text, i);
    if (byte >= 0x80 && length > 0) {  // valid UTF-8 goes as it is
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    if (byte >= 0x80) {
      // A C1 control (valid UTF-8 that utf8_sequence_length refuses) is escaped; a
      // byte that is not UTF-8 at all cannot be carried by JSON: U+FFFD stands in.
      const bool c1 = byte == 0xC2 && i + 1 < text.size() &&
                      static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                      static_cast<unsigned char>(text[i + 1]) <= 0x9F;
      if (c1) {
        std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(text[i + 1]));
        out += escaped;
        i += 2;
      } else {
        out += "\\ufffd";
        ++i;
      }
      continue;
    }
    switch (byte) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(byte));
          out += escaped;
        } else {
          out += static_cast<char>(byte);
        }
    }
    ++i;
  }
  return out + "\"";
}

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

std::string result_fields(const DownloadResult& done) {
  std::string notes = "[";
  for (const std::string& note : done.notes) {
    if (notes.size() > 1) notes += ',';
    notes += json_string(note);
  }
  notes += ']';
  std::string sources;
  if (!done.sources.empty()) {
    sources = ",\"sources\":[";
    for (const DownloadSourceReport& source : done.sources) {
      if (sources.back() != '[') sources += ',';
      sources += "{\"url\":" + json_string(source.url) +
                 ",\"bytes\":" + std::to_string(source.bytes) + ",\"dropped\":" +
                 (source.dropped.empty() ? std::string("null") : json_string(source.dropped)) + "}";
    }
    sources += ']';
  }
  const double speed = done.seconds > 0 ? static_cast<double>(done.transferred) / done.seconds : 0;
  const ResponseHead& first = done.first_response;
  return "\"path\":" + json_string(done.path) + ",\"status\":" + std::to_string(first.status) +
         ",\"http_version\":" + json_string(to_string(first.version)) +
         ",\"effective_url\":" + json_string(first.effective_url) +
         ",\"size\":" + std::to_string(done.size) +
         ",\"transferred\":" + std::to_string(done.transferred) +
         ",\"resumed_from\":" + std::to_string(done.resumed_from) +
         ",\"ranges\":" + std::to_string(done.ranges) +
         ",\"retries\":" + std::to_string(done.retries) +
         ",\"steals\":" + std::to_string(done.steals) + ",\"seconds\":" + number(done.seconds) +
         ",\"bytes_per_second\":" + number(speed) + sources + ",\"notes\":" + notes;
}

// What a failed download got before it stopped, from its last progress report.
std::string partial_fields(const DownloadProgress& last) {
  return ",\"path\":" + json_string(last.path) +
         ",\"size\":" + (last.total ? std::to_string(*last.total) : std::string("null")) +
         ",\"transferred\":" +
         std::to_string(last.bytes_done - std::min(last.bytes_done, last.resumed_from)) +
         ",\"resumed_from\":" + std::to_string(last.resumed_from) +
         ",\"bytes_on_disk\":" + std::to_string(last.bytes_done);
}

}  // namespace

std::string json_summary(const std::string& url, const Result<DownloadResult>& result,
                         int exit_code, const DownloadProgress* last) {
  std::string object = "{\"url\":" + json_string(url) + ",\"ok\":" + (result ? "true" : "false");
  if (result) {
    object += "," + result_fields(*result) + ",\"error\":null";
  } else {
    object += ",\"error\":" + json_string(result.error().message()) +
              ",\"category\":" + json_string(to_string(result.error().category()));
    if (last != nullptr) object += partial_fields(*last);
  }
  return object + ",\"exit_code\":" + std::to_string(exit_code) + "}\n";
}

}  // namespace sluice::cli
