#include "cli/json_summary.hpp"

#include <cstdio>

namespace sluice::cli {

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
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
  const double speed = done.seconds > 0 ? static_cast<double>(done.transferred) / done.seconds : 0;
  return "\"path\":" + json_string(done.path) + ",\"status\":" + std::to_string(done.status) +
         ",\"http_version\":" + json_string(to_string(done.version)) +
         ",\"effective_url\":" + json_string(done.effective_url) +
         ",\"size\":" + std::to_string(done.size) +
         ",\"transferred\":" + std::to_string(done.transferred) +
         ",\"resumed_from\":" + std::to_string(done.resumed_from) +
         ",\"ranges\":" + std::to_string(done.ranges) + ",\"retries\":" + std::to_string(done.retries) +
         ",\"seconds\":" + number(done.seconds) + ",\"bytes_per_second\":" + number(speed) +
         ",\"notes\":" + notes;
}

}  // namespace

std::string json_summary(const std::string& url, const Result<DownloadResult>& result,
                         int exit_code) {
  std::string object = "{\"url\":" + json_string(url) + ",\"ok\":" + (result ? "true" : "false");
  if (result) {
    object += "," + result_fields(*result) + ",\"error\":null";
  } else {
    object += ",\"error\":" + json_string(result.error().message()) +
              ",\"category\":" + json_string(to_string(result.error().category()));
  }
  return object + ",\"exit_code\":" + std::to_string(exit_code) + "}\n";
}

}  // namespace sluice::cli
