#include "cli/request_builder.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cli/etag_files.hpp"
#include "cli/options/option_spec.hpp"
#include "cli/options/syntax/percent_encode.hpp"
#include "cli/output/stderr_lines.hpp"
#include "cli/output/wire_dump.hpp"
#include "sluice/http_date.hpp"
#include "sluice/multipart.hpp"

namespace sluice::cli {
namespace {

// --trace/--trace-ascii: the library's trace lines as "== Info:" records and its wire
// tap's bytes as dumps, into one file (stdout for "-"), as curl's trace file. Both
// callbacks run on the HTTP thread alone, so records never interleave. The trace
// takes the place of -v's lines, as in curl.
void attach_wire_trace(const CliOptions& options, ClientOptions& client_options) {
  std::shared_ptr<std::FILE> file;
  if (options.trace_path == "-") {
    file = std::shared_ptr<std::FILE>(stdout, [](std::FILE*) {});
  } else if (std::FILE* opened = std::fopen(options.trace_path.c_str(), "wb")) {
    file = std::shared_ptr<std::FILE>(opened, [](std::FILE* f) { std::fclose(f); });
  } else {
    std::fprintf(stderr, "sluice: Warning: cannot write the trace file %s: %s\n",
                 options.trace_path.c_str(), std::strerror(errno));
    return;
  }
  const DumpStyle style = options.trace_ascii ? DumpStyle::ascii : DumpStyle::hex;
  const bool timed = options.trace_time;
  auto write = [file, timed](const std::string& record) {
    const std::string text = timed ? trace_timestamp() + record : record;
    std::fwrite(text.data(), 1, text.size(), file.get());
    std::fflush(file.get());
  };
  client_options.trace = [write](std::string_view line) { write(dump_info(line)); };
  client_options.wire_tap = [write, style](const WireChunk& chunk) {
    write(dump_chunk(chunk, style));
  };
}

}  // namespace

namespace {

bool named_in(const std::vector<std::string>& names, std::string_view name) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& other) { return iequals(other, name); });
}

bool given_by_user(const CliOptions& options, std::string_view name) {
  return std::any_of(options.headers.begin(), options.headers.end(),
                     [&](const Header& header) { return iequals(header.name, name); });
}

// A header the command adds on its own, unless -H replaces it or drops it ("Name:").
void add_own_header(Headers& headers, const CliOptions& options, std::string name,
                    std::string value) {
  if (given_by_user(options, name) || named_in(options.removed_headers, name)) return;
  headers.add(std::move(name), std::move(value));
}

Headers build_headers(const CliOptions& options, const std::optional<MultipartForm>& form) {
  Headers headers;
  add_own_header(headers, options, "Accept", options.json ? "application/json" : "*/*");
  if (options.user_agent) add_own_header(headers, options, "User-Agent", *options.user_agent);
  if (options.referer) add_own_header(headers, options, "Referer", *options.referer);
  if (options.data || !options.data_file.empty()) {
    add_own_header(headers, options, "Content-Type",
                   options.json ? "application/json" : "application/x-www-form-urlencoded");
  }
  if (form) add_own_header(headers, options, "Content-Type", form->content_type());
  if (!options.etag_compare.empty()) {
    if (auto etag = read_etag_file(options.etag_compare)) {
      add_own_header(headers, options, "If-None-Match", *etag);
    }
  }
  if (options.time_cond) {
    add_own_header(headers, options, std::string(options.time_cond->header_name()),
                   format_http_date(options.time_cond->when));
  }
  for (const Header& header : options.headers) headers.add(header.name, header.value);
  return headers;
}

std::optional<MultipartForm> build_form(const CliOptions& options) {
  if (options.form.empty()) return std::nullopt;
  MultipartForm form;
  for (const FormPart& part : options.form) {
    if (part.file.empty()) {
      form.add_field(part.name, part.value, part.type);
    } else {
      form.add_file(part.name, part.file, part.filename, part.type);
    }
  }
  return form;
}

// -T - (stdin) is a StreamBody the transfer feeds (stdin_upload.hpp).
RequestBody build_body(const CliOptions& options, const std::optional<MultipartForm>& form) {
  if (form) return form->body();
  if (!options.upload_file.empty() && options.upload_file != "-")
    return FileBody{options.upload_file};
  if (!options.data_file.empty()) return FileBody{options.data_file};
  if (options.data) return BytesBody{*options.data};
  return std::monostate{};
}

std::string build_method(const CliOptions& options) {
  if (!options.method.empty()) return options.method;
  if (options.head_only) return "HEAD";
  if (!options.upload_file.empty()) return "PUT";
  return options.has_body() ? "POST" : "GET";
}

// curl's -T rule: a URL that ends in '/' names a directory, and the file keeps its name.
std::string upload_url(const CliOptions& options, std::string url) {
  if (options.upload_file.empty() || options.upload_file == "-") return url;
  const std::size_t query = std::min(url.find_first_of("?#"), url.size());
  if (query == 0 || url[query - 1] != '/') return url;
  const std::string name = options.upload_file.substr(options.upload_file.find_last_of('/') + 1);
  return url.insert(query, percent_encoded(name));
}

}  // namespace

Request build_request(const CliOptions& options) {
  Request request;
  request.method = build_method(options);
  request.url = upload_url(options, options.urls.empty() ? std::string() : options.urls.front());
  const std::optional<MultipartForm> form = build_form(options);
  request.headers = build_headers(options, form);
  request.auth = options.auth;
  request.body = build_body(options, form);
  request.version = options.version;
  // curl's --connect-timeout covers the whole connect phase, TLS handshake included.
  if (options.connect_timeout) {
    request.timeouts.connect = *options.connect_timeout;
    request.timeouts.tls = *options.connect_timeout;
  }
  request.timeouts.total = options.max_time;
  request.redirects.follow = options.follow_redirects;
  request.redirects.max_redirects = options.max_redirects;
  request.redirects.allow_https_to_http = options.redirect_to_http;
  request.redirects.follow_to_http = options.protocols.http && options.redirect_protocols.http;
  request.redirects.follow_to_https = options.protocols.https && options.redirect_protocols.https;
  request.redirects.keep_post_on_301 = options.keep_post_on_301;
  request.redirects.keep_post_on_302 = options.keep_post_on_302;
  request.redirects.keep_post_on_303 = options.keep_post_on_303;
  request.redirects.credentials_to_other_origins = options.credentials_to_other_origins;
  request.redirects.auto_referer = options.referer_auto;
  request.decode.enabled = options.compressed;
  return request;
}

ClientOptions build_client_options(const CliOptions& options) {
  ClientOptions client_options;
  client_options.tls.ca_file = options.ca_file;
  client_options.tls.insecure = options.insecure;
  client_options.tls.client_cert = options.tls.cert;
  client_options.tls.client_key = options.tls.key;
  client_options.tls.key_password = options.tls.pass;
  client_options.tls.ca_path = options.tls.capath;
  if (options.tls.tls13_min) client_options.tls.min_version = TlsVersion::v1_3;
  if (options.tls.tls12_max) client_options.tls.max_version = TlsVersion::v1_2;
  client_options.tls.tls12_ciphers = options.tls.ciphers;
  client_options.tls.tls13_ciphers = options.tls.tls13_ciphers;
  client_options.tls.pinned_public_key = options.tls.pinned_pubkey;
  client_options.tls.session_cache = !options.tls.no_sessionid;
  client_options.tls.early_data = options.tls.early_data;
  client_options.state = options.state_files;
  client_options.low_speed = low_speed_limit(options);
  // As curl: the environment's proxy unless -x names one, and its NO_PROXY unless
  // --noproxy gives a list (even an empty one); -x "" turns every proxy off.
  client_options.proxy.from_environment = options.proxy.value_or("x") != "";
  client_options.proxy.url = options.proxy.value_or("");
  client_options.proxy.user = options.proxy_user;
  client_options.proxy.ca_file = options.proxy_ca_file;
  client_options.proxy.insecure = options.proxy_insecure;
  client_options.proxy.no_proxy = options.no_proxy;
  client_options.proxy.tunnel = options.proxy_tunnel;
  client_options.routing.ip_version = options.ip_version;
  client_options.netrc = options.auth_cli.netrc_mode();
  client_options.netrc_file = options.auth_cli.netrc_file;
  client_options.routing.resolve = options.resolve;
  client_options.routing.connect_to = options.connect_to;
  client_options.routing.unix_socket = options.unix_socket;
  client_options.routing.dns_servers = options.dns_servers;
  client_options.routing.interface = options.interface;
  client_options.routing.local_port = options.local_port;
  client_options.routing.local_port_range = options.local_port_range;
  if (options.happy_eyeballs_delay)
    client_options.routing.happy_eyeballs_delay = *options.happy_eyeballs_delay;
  // One transfer runs at most one file job at a time (an upload's reads).
  client_options.file_threads = 1;
  if (options.verbose) {
    // The library's trace lines, curl-style: "* c1 h1: ...", each one write, so
    // lines from the HTTP thread never interleave, and above a live progress bar.
    client_options.trace = [](std::string_view line) {
      std::string out = "* ";
      out.append(line);
      out.push_back('\n');
      stderr_lines().write(out);
    };
  }
  if (!options.trace_path.empty()) attach_wire_trace(options, client_options);
  return client_options;
}

}  // namespace sluice::cli
