#include "cli/write_out.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <utility>

namespace sluice::cli {
namespace {

struct VariableName {
  std::string_view name;
  WriteOutVariable variable;
};

constexpr std::array<VariableName, 18> kVariables = {{
    {"http_code", WriteOutVariable::http_code},
    {"http_version", WriteOutVariable::http_version},
    {"size_download", WriteOutVariable::size_download},
    {"time_total", WriteOutVariable::time_total},
    {"num_redirects", WriteOutVariable::num_redirects},
    {"url_effective", WriteOutVariable::url_effective},
    {"content_type", WriteOutVariable::content_type},
    {"exitcode", WriteOutVariable::exitcode},
    {"errormsg", WriteOutVariable::errormsg},
    {"time_namelookup", WriteOutVariable::time_namelookup},
    {"time_connect", WriteOutVariable::time_connect},
    {"time_appconnect", WriteOutVariable::time_appconnect},
    {"time_pretransfer", WriteOutVariable::time_pretransfer},
    {"time_starttransfer", WriteOutVariable::time_starttransfer},
    {"remote_ip", WriteOutVariable::remote_ip},
    {"remote_port", WriteOutVariable::remote_port},
    {"local_ip", WriteOutVariable::local_ip},
    {"local_port", WriteOutVariable::local_port},
}};

std::optional<WriteOutVariable> find_variable(std::string_view name) {
  for (const VariableName& entry : kVariables) {
    if (entry.name == name) return entry.variable;
  }
  return std::nullopt;
}

// Unknown escapes stay as written (backslash included), as curl prints them.
std::string_view unescape(char c) {
  switch (c) {
    case 'n': return "\n";
    case 't': return "\t";
    case 'r': return "\r";
    case '\\': return "\\";
    default: return {};
  }
}

std::string format_int(long long value, const char* pattern) {
  char text[32];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string format_seconds(double seconds) {
  char text[48];
  std::snprintf(text, sizeof text, "%.6f", seconds);
  return text;
}

// Seconds from the response's start to one of its steps, as curl prints them: 0 for
// a step that did not happen (no lookup, connect or TLS on a reused connection, no
// TLS over http://) or before any response.
std::string seconds_to(const TransferReport& report,
                       std::optional<ResponseTiming::TimePoint> ResponseTiming::*step) {
  if (!report.timing || !((*report.timing).*step)) return format_seconds(0);
  return format_seconds(
      std::chrono::duration<double>(*((*report.timing).*step) - report.timing->start).count());
}
std::string seconds_to(const TransferReport& report, ResponseTiming::TimePoint ResponseTiming::*step) {
  if (!report.timing) return format_seconds(0);
  return format_seconds(
      std::chrono::duration<double>((*report.timing).*step - report.timing->start).count());
}

std::string expand_variable(WriteOutVariable variable, const TransferReport& report) {
  switch (variable) {
    case WriteOutVariable::http_code: return format_int(report.http_code, "%03lld");
    case WriteOutVariable::http_version:
      return report.version ? to_string(*report.version) : "0";
    case WriteOutVariable::size_download:
      return format_int(static_cast<long long>(report.size_download), "%lld");
    case WriteOutVariable::time_total: return format_seconds(report.time_total);
    case WriteOutVariable::time_namelookup: return seconds_to(report, &ResponseTiming::dns_end);
    case WriteOutVariable::time_connect: return seconds_to(report, &ResponseTiming::connect_end);
    case WriteOutVariable::time_appconnect: return seconds_to(report, &ResponseTiming::tls_end);
    case WriteOutVariable::time_pretransfer:
      return seconds_to(report, &ResponseTiming::request_start);
    case WriteOutVariable::time_starttransfer:
      return seconds_to(report, &ResponseTiming::response_start);
    case WriteOutVariable::remote_ip: return report.remote_ip;
    case WriteOutVariable::remote_port: return format_int(report.remote_port, "%lld");
    case WriteOutVariable::local_ip: return report.local_ip;
    case WriteOutVariable::local_port: return format_int(report.local_port, "%lld");
    case WriteOutVariable::num_redirects: return format_int(report.num_redirects, "%lld");
    case WriteOutVariable::url_effective: return report.url_effective;
    case WriteOutVariable::content_type: return report.content_type;
    case WriteOutVariable::exitcode: return format_int(report.exit_code, "%lld");
    case WriteOutVariable::errormsg: return report.error_message;
  }
  return {};
}

}  // namespace

Result<WriteOutFormat> WriteOutFormat::parse(std::string_view format) {
  WriteOutFormat parsed;
  std::string literal;
  auto flush_literal = [&] {
    if (!literal.empty()) parsed.pieces_.emplace_back(std::exchange(literal, {}));
  };
  for (std::size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if (c == '\\' && i + 1 < format.size() && !unescape(format[i + 1]).empty()) {
      literal += unescape(format[++i]);
    } else if (c == '%' && i + 1 < format.size() && format[i + 1] == '%') {
      literal += '%';
      ++i;
    } else if (c == '%' && i + 1 < format.size() && format[i + 1] == '{') {
      std::size_t close = format.find('}', i + 2);
      if (close == std::string_view::npos) {
        return Error(ErrorCategory::usage,
                     "-w: unterminated '%{' in the format (expected %{name})");
      }
      std::string_view name = format.substr(i + 2, close - i - 2);
      std::optional<WriteOutVariable> variable = find_variable(name);
      if (!variable) {
        return Error(ErrorCategory::usage,
                     "-w: unknown variable '%{" + std::string(name) +
                         "}' (see 'sluice --help' for the list)");
      }
      flush_literal();
      parsed.pieces_.emplace_back(*variable);
      i = close;
    } else {
      literal += c;
    }
  }
  flush_literal();
  return parsed;
}

std::string WriteOutFormat::expand(const TransferReport& report) const {
  std::string out;
  for (const Piece& piece : pieces_) {
    if (const auto* text = std::get_if<std::string>(&piece)) {
      out += *text;
    } else {
      out += expand_variable(std::get<WriteOutVariable>(piece), report);
    }
  }
  return out;
}

}  // namespace sluice::cli
