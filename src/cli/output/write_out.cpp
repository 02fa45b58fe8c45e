#include "cli/output/write_out.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <utility>

#include "cli/output/head_output.hpp"
#include "cli/output/json_summary.hpp"

namespace sluice::cli {
namespace {

struct VariableName {
  std::string_view name;
  WriteOutVariable variable;
};

constexpr std::array kVariables = std::to_array<VariableName>({
    {"http_code", WriteOutVariable::http_code},
    {"http_version", WriteOutVariable::http_version},
    {"size_download", WriteOutVariable::size_download},
    {"time_total", WriteOutVariable::time_total},
    {"num_redirects", WriteOutVariable::num_redirects},
    {"num_connects", WriteOutVariable::num_connects},
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
    {"num_retries", WriteOutVariable::num_retries},
    {"time_redirect", WriteOutVariable::time_redirect},
    {"speed_download", WriteOutVariable::speed_download},
    {"speed_upload", WriteOutVariable::speed_upload},
    {"size_header", WriteOutVariable::size_header},
    {"size_upload", WriteOutVariable::size_upload},
    {"scheme", WriteOutVariable::scheme},
    {"ssl_verify_result", WriteOutVariable::ssl_verify_result},
    {"json", WriteOutVariable::json},
    {"stdout", WriteOutVariable::to_stdout},
    {"stderr", WriteOutVariable::to_stderr},
});

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
std::string seconds_to(const TransferReport& report,
                       ResponseTiming::TimePoint ResponseTiming::*step) {
  if (!report.timing) return format_seconds(0);
  return format_seconds(
      std::chrono::duration<double>((*report.timing).*step - report.timing->start).count());
}

// Bytes per second over the whole transfer, as curl prints it: a whole number.
std::string speed(std::uint64_t bytes, double seconds) {
  return format_int(seconds > 0 ? static_cast<long long>(static_cast<double>(bytes) / seconds) : 0,
                    "%lld");
}

// The scheme of the URL, lowercase as it is written ("http", "https").
std::string scheme_of(const std::string& url) {
  const std::size_t colon = url.find("://");
  std::string scheme = colon == std::string::npos ? std::string() : url.substr(0, colon);
  for (char& c : scheme) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return scheme;
}

std::string json_of(const TransferReport& report);

std::string expand_variable(WriteOutVariable variable, const TransferReport& report) {
  switch (variable) {
    case WriteOutVariable::time_redirect:
      if (!report.timing || report.num_redirects == 0) return format_seconds(0);
      return format_seconds(
          std::chrono::duration<double>(report.timing->fetch_start - report.timing->start).count());
    case WriteOutVariable::speed_download: return speed(report.size_download, report.time_total);
    case WriteOutVariable::speed_upload: return speed(report.size_upload, report.time_total);
    case WriteOutVariable::size_header:
      return format_int(static_cast<long long>(report.size_header), "%lld");
    case WriteOutVariable::size_upload:
      return format_int(static_cast<long long>(report.size_upload), "%lld");
    case WriteOutVariable::scheme: return scheme_of(report.url_effective);
    case WriteOutVariable::ssl_verify_result: return format_int(report.ssl_verify_result, "%lld");
    case WriteOutVariable::json: return json_of(report);
    case WriteOutVariable::to_stdout:
    case WriteOutVariable::to_stderr: return {};
    case WriteOutVariable::http_code: return format_int(report.http_code, "%03lld");
    case WriteOutVariable::http_version: return report.version ? to_string(*report.version) : "0";
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
    case WriteOutVariable::num_connects: return format_int(report.num_connects, "%lld");
    case WriteOutVariable::num_retries: return format_int(report.num_retries, "%lld");
    case WriteOutVariable::url_effective: return report.url_effective;
    case WriteOutVariable::content_type: return report.content_type;
    case WriteOutVariable::exitcode: return format_int(report.exit_code, "%lld");
    case WriteOutVariable::errormsg: return report.error_message;
  }
  return {};
}

// %{json}: every variable by its name, numbers as numbers (curl's key set, those
// sluice has).
std::string json_of(const TransferReport& report) {
  std::string out = "{";
  for (const VariableName& entry : kVariables) {
    const WriteOutVariable variable = entry.variable;
    if (variable == WriteOutVariable::json || variable == WriteOutVariable::to_stdout ||
        variable == WriteOutVariable::to_stderr) {
      continue;
    }
    // http_code is zero-padded for -w ("000"), which JSON does not allow.
    const std::string value = variable == WriteOutVariable::http_code
                                  ? std::to_string(report.http_code)
                                  : expand_variable(variable, report);
    const bool text =
        variable == WriteOutVariable::url_effective || variable == WriteOutVariable::content_type ||
        variable == WriteOutVariable::errormsg || variable == WriteOutVariable::remote_ip ||
        variable == WriteOutVariable::local_ip || variable == WriteOutVariable::scheme ||
        variable == WriteOutVariable::http_version;
    if (out.size() > 1) out += ',';
    out += json_string(entry.name) + ":" + (text ? json_string(value) : value);
  }
  return out + "}";
}

}  // namespace

void report_response(TransferReport& report, const ResponseHead& response) {
  report.http_code = response.status;
  report.version = response.version;
  report.num_redirects = response.redirects;
  report.num_connects = response.connects;
  if (!response.effective_url.empty()) report.url_effective = response.effective_url;
  report.content_type = std::string(response.headers.get("Content-Type").value_or(""));
  report.timing = response.timing;
  report.remote_ip = response.remote_ip;
  report.remote_port = response.remote_port;
  report.local_ip = response.local_ip;
  report.local_port = response.local_port;
  report.headers = response.headers;
  report.size_header =
      response_head_text(response.version, response.status, response.headers).size();
  report.ssl_verify_result = response.tls_verify_result;
}

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
    } else if (format.substr(i).starts_with("%header{")) {
      const std::size_t open = i + std::string_view("%header{").size();
      const std::size_t close = format.find('}', open);
      if (close == std::string_view::npos || close == open) {
        return Error(ErrorCategory::usage,
                     "-w: unterminated or empty '%header{' (expected %header{Name})");
      }
      flush_literal();
      parsed.pieces_.emplace_back(HeaderVariable{std::string(format.substr(open, close - open))});
      i = close;
    } else if (c == '%' && i + 1 < format.size() && format[i + 1] == '{') {
      std::size_t close = format.find('}', i + 2);
      if (close == std::string_view::npos) {
        return Error(ErrorCategory::usage,
                     "-w: unterminated '%{' in the format (expected %{name})");
      }
      std::string_view name = format.substr(i + 2, close - i - 2);
      std::optional<WriteOutVariable> variable = find_variable(name);
      if (!variable) {
        return Error(ErrorCategory::usage, "-w: unknown variable '%{" + std::string(name) +
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

WriteOutText WriteOutFormat::expand(const TransferReport& report) const {
  WriteOutText text;
  std::string* into = &text.out;
  for (const Piece& piece : pieces_) {
    if (const auto* literal = std::get_if<std::string>(&piece)) {
      *into += *literal;
    } else if (const auto* header = std::get_if<HeaderVariable>(&piece)) {
      *into += std::string(report.headers.get(header->name).value_or(""));
    } else {
      const WriteOutVariable variable = std::get<WriteOutVariable>(piece);
      if (variable == WriteOutVariable::to_stdout) into = &text.out;
      if (variable == WriteOutVariable::to_stderr) into = &text.err;
      *into += expand_variable(variable, report);
    }
  }
  return text;
}

Result<void> WriteOutFormat::print(const TransferReport& report) const {
  const WriteOutText text = expand(report);
  if (!text.err.empty()) std::fwrite(text.err.data(), 1, text.err.size(), stderr);
  if (text.out.empty()) return {};
  if (std::fwrite(text.out.data(), 1, text.out.size(), stdout) != text.out.size() ||
      std::fflush(stdout) != 0) {
    return Error(ErrorCategory::io, "-w: cannot write to stdout");
  }
  return {};
}

}  // namespace sluice::cli
