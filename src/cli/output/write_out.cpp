#include "cli/output/write_out.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <utility>

#include "cli/ascii_case.hpp"
#include "cli/output/head_output.hpp"
#include "cli/output/json_summary.hpp"
#include "sluice/url.hpp"

namespace sluice::cli {
namespace {

struct VariableName {
  std::string_view name;
  WriteOutVariable variable;
};

constexpr std::array kVariables = std::to_array<VariableName>({
    {"http_code", WriteOutVariable::http_code},
    {"response_code", WriteOutVariable::response_code},
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
    {"url", WriteOutVariable::url},
    {"redirect_url", WriteOutVariable::redirect_url},
    {"filename_effective", WriteOutVariable::filename_effective},
    {"method", WriteOutVariable::method},
    {"num_headers", WriteOutVariable::num_headers},
    {"json", WriteOutVariable::json},
    {"header_json", WriteOutVariable::header_json},
    {"stdout", WriteOutVariable::to_stdout},
    {"stderr", WriteOutVariable::to_stderr},
    {"onerror", WriteOutVariable::onerror},
});

// Variables that are not values of the transfer, so %{json} leaves them out.
bool is_directive(WriteOutVariable variable) {
  return variable == WriteOutVariable::json || variable == WriteOutVariable::header_json ||
         variable == WriteOutVariable::to_stdout || variable == WriteOutVariable::to_stderr ||
         variable == WriteOutVariable::onerror;
}

// JSON strings rather than numbers in %{json}.
bool is_text(WriteOutVariable variable) {
  switch (variable) {
    case WriteOutVariable::url_effective:
    case WriteOutVariable::content_type:
    case WriteOutVariable::errormsg:
    case WriteOutVariable::remote_ip:
    case WriteOutVariable::local_ip:
    case WriteOutVariable::scheme:
    case WriteOutVariable::http_version:
    case WriteOutVariable::url:
    case WriteOutVariable::redirect_url:
    case WriteOutVariable::filename_effective:
    case WriteOutVariable::method: return true;
    default: return false;
  }
}

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
  return colon == std::string::npos ? std::string() : ascii_lowercase(url.substr(0, colon));
}

std::string json_of(const TransferReport& report);

// %{header_json} as curl prints it: one line per field name, in the order each name
// first came, its values (repeated fields) in one array.
std::string header_json_of(const Headers& headers) {
  std::vector<std::string> names;
  for (const auto& field : headers) {
    std::string name = ascii_lowercase(field.name);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::string out = "{";
  for (const std::string& name : names) {
    if (out.size() > 1) out += ",\n";
    out += json_string(name) + ":[";
    bool first = true;
    for (std::string_view value : headers.get_all(name)) {
      if (!std::exchange(first, false)) out += ',';
      out += json_string(value);
    }
    out += ']';
  }
  return out + "\n}";
}

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
    case WriteOutVariable::header_json: return header_json_of(report.headers);
    case WriteOutVariable::to_stdout:
    case WriteOutVariable::to_stderr:
    case WriteOutVariable::onerror: return {};
    case WriteOutVariable::http_code:
    case WriteOutVariable::response_code: return format_int(report.http_code, "%03lld");
    case WriteOutVariable::url: return report.url;
    case WriteOutVariable::redirect_url: return redirect_url_of(report);
    case WriteOutVariable::filename_effective: return report.filename_effective;
    case WriteOutVariable::method: return report.method;
    case WriteOutVariable::num_headers:
      return format_int(static_cast<long long>(report.headers.size()), "%lld");
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
    if (is_directive(variable)) continue;
    // http_code is zero-padded for -w ("000"), which JSON does not allow.
    const bool status =
        variable == WriteOutVariable::http_code || variable == WriteOutVariable::response_code;
    const std::string value =
        status ? std::to_string(report.http_code) : expand_variable(variable, report);
    if (out.size() > 1) out += ',';
    out += json_string(entry.name) + ":" + (is_text(variable) ? json_string(value) : value);
  }
  return out + "}";
}

}  // namespace

std::string redirect_url_of(const TransferReport& report) {
  if (report.http_code / 100 != 3) return {};
  const std::optional<std::string_view> location = report.headers.get("Location");
  if (!location) return {};
  Result<Url> base = Url::parse(report.url_effective);
  if (!base) return {};
  Result<Url> target = base->resolve(*location);
  return target ? target->to_string() : std::string();
}

void report_response(TransferReport& report, const ResponseHead& response) {
  report.http_code = response.status;
  report.version = response.version;
  report.num_redirects = response.redirects;
  report.num_connects = response.connects;
  if (!response.effective_url.empty()) {
    // curl shows an international host as it was written, not its "xn--" form.
    const Result<Url> shown = Url::parse(response.effective_url);
    report.url_effective = shown ? shown->to_display_string() : response.effective_url;
  }
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

namespace {

// "%name{TEXT}" at the start of `format`: TEXT, or nullopt when `format` does not
// start with "%name{". Error (usage) when the brace is not closed or TEXT is empty.
Result<std::optional<std::string_view>> braced(std::string_view format, std::string_view name) {
  const std::string prefix = "%" + std::string(name) + "{";
  if (!format.starts_with(prefix)) return std::optional<std::string_view>();
  const std::size_t close = format.find('}', prefix.size());
  if (close == std::string_view::npos || close == prefix.size()) {
    return Error(ErrorCategory::usage,
                 "-w: unterminated or empty '" + prefix + "' (expected " + prefix + "...})");
  }
  return std::optional(format.substr(prefix.size(), close - prefix.size()));
}

OutputFile output_file(std::string_view text) {
  if (text.starts_with(">>")) return OutputFile{std::string(text.substr(2)), true};
  return OutputFile{std::string(text), false};
}

}  // namespace

Result<WriteOutFormat> WriteOutFormat::parse(std::string_view format) {
  WriteOutFormat parsed;
  std::string literal;
  auto add = [&](Piece piece) {
    if (!literal.empty()) parsed.pieces_.emplace_back(std::exchange(literal, {}));
    parsed.pieces_.push_back(std::move(piece));
  };
  for (std::size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    const std::string_view rest = format.substr(i);
    if (c == '\\' && i + 1 < format.size() && !unescape(format[i + 1]).empty()) {
      literal += unescape(format[++i]);
      continue;
    }
    if (rest.starts_with("%%")) {
      literal += '%';
      ++i;
      continue;
    }
    Result<std::optional<std::string_view>> header = braced(rest, "header");
    if (!header) return std::move(header).error();
    Result<std::optional<std::string_view>> output = braced(rest, "output");
    if (!output) return std::move(output).error();
    if (*header) {
      add(HeaderVariable{std::string(**header)});
      i += std::string_view("%header{}").size() + (*header)->size() - 1;
    } else if (*output) {
      add(output_file(**output));
      i += std::string_view("%output{}").size() + (*output)->size() - 1;
    } else if (rest.starts_with("%{")) {
      const std::size_t close = format.find('}', i + 2);
      if (close == std::string_view::npos) {
        return Error(ErrorCategory::usage,
                     "-w: unterminated '%{' in the format (expected %{name})");
      }
      const std::string_view name = format.substr(i + 2, close - i - 2);
      if (std::optional<WriteOutVariable> variable = find_variable(name)) {
        add(*variable);
      } else {
        add(UnknownVariable{std::string(name)});
      }
      i = close;
    } else {
      literal += c;
    }
  }
  if (!literal.empty()) parsed.pieces_.emplace_back(std::move(literal));
  return parsed;
}

namespace {

std::string joined(const WriteOutText& text, WriteOutTarget::Stream stream) {
  std::string all;
  for (const WriteOutText::Part& part : text.parts) {
    if (part.target.stream == stream) all += part.text;
  }
  return all;
}

}  // namespace

std::string WriteOutText::out() const { return joined(*this, WriteOutTarget::Stream::out); }
std::string WriteOutText::err() const { return joined(*this, WriteOutTarget::Stream::err); }

WriteOutText WriteOutFormat::expand(const TransferReport& report) const {
  WriteOutText text;
  text.parts.emplace_back();
  // A new target starts a new part, so that a file named twice is opened twice, as
  // curl opens it at each %output.
  auto switch_to = [&](WriteOutTarget target) {
    text.parts.push_back(WriteOutText::Part{std::move(target), {}});
  };
  for (const Piece& piece : pieces_) {
    if (const auto* literal = std::get_if<std::string>(&piece)) {
      text.parts.back().text += *literal;
    } else if (const auto* header = std::get_if<HeaderVariable>(&piece)) {
      text.parts.back().text += report.headers.get(header->name).value_or("");
    } else if (const auto* unknown = std::get_if<UnknownVariable>(&piece)) {
      text.unknown_variables.push_back(unknown->name);
    } else if (const auto* file = std::get_if<OutputFile>(&piece)) {
      switch_to(WriteOutTarget{WriteOutTarget::Stream::file, *file});
    } else {
      const WriteOutVariable variable = std::get<WriteOutVariable>(piece);
      if (variable == WriteOutVariable::onerror && report.exit_code == 0) break;
      if (variable == WriteOutVariable::to_stdout) switch_to({WriteOutTarget::Stream::out, {}});
      if (variable == WriteOutVariable::to_stderr) switch_to({WriteOutTarget::Stream::err, {}});
      text.parts.back().text += expand_variable(variable, report);
    }
  }
  return text;
}

namespace {

Result<void> write_part(const WriteOutText::Part& part) {
  switch (part.target.stream) {
    case WriteOutTarget::Stream::err:
      std::fwrite(part.text.data(), 1, part.text.size(), stderr);
      return {};
    case WriteOutTarget::Stream::out:
      if (std::fwrite(part.text.data(), 1, part.text.size(), stdout) != part.text.size() ||
          std::fflush(stdout) != 0) {
        return Error(ErrorCategory::io, "-w: cannot write to stdout");
      }
      return {};
    case WriteOutTarget::Stream::file: break;
  }
  const OutputFile& file = part.target.file;
  std::FILE* out = std::fopen(file.path.c_str(), file.append ? "ab" : "wb");
  if (out == nullptr) return Error(ErrorCategory::io, "-w: cannot open '" + file.path + "'");
  const bool wrote = std::fwrite(part.text.data(), 1, part.text.size(), out) == part.text.size();
  if (std::fclose(out) != 0 || !wrote) {
    return Error(ErrorCategory::io, "-w: cannot write to '" + file.path + "'");
  }
  return {};
}

}  // namespace

Result<void> WriteOutFormat::print(const TransferReport& report) const {
  const WriteOutText text = expand(report);
  for (const std::string& name : text.unknown_variables) {
    std::fputs(("sluice: warning: -w: unknown variable '%{" + name + "}'\n").c_str(), stderr);
  }
  for (const WriteOutText::Part& part : text.parts) {
    // An empty part still opens (and so creates or truncates) its file.
    if (part.text.empty() && part.target.stream != WriteOutTarget::Stream::file) continue;
    if (Result<void> wrote = write_part(part); !wrote) return wrote;
  }
  return {};
}

}  // namespace sluice::cli
