#include "auth/aws_sigv4.hpp"

#include <array>
#include <ctime>
#include <vector>

#include "auth/aws_sigv4_canonical.hpp"
#include "auth/header_text.hpp"
#include "core/ascii_case.hpp"
#include "tls/crypto_hash.hpp"

namespace sluice {
namespace {

Error scope_error(const std::string& what) {
  return Error(ErrorCategory::usage, "--aws-sigv4: " + what);
}

// A provider names headers (x-<provider2>-date), so it must be a plain token.
bool is_provider(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// Region and service go into the Credential's slash-separated scope.
bool is_scope_part(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::string to_hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 0x0f]);
  }
  return hex;
}

// "20150830T123600Z" for `now` in UTC.
std::string timestamp_of(std::chrono::system_clock::time_point now) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  std::array<char, 20> text{};
  const std::size_t length = std::strftime(text.data(), text.size(), "%Y%m%dT%H%M%SZ", &utc);
  return std::string(text.data(), length);
}

bool is_timestamp(std::string_view text) {
  if (text.size() != 16 || text[8] != 'T' || text[15] != 'Z') return false;
  for (std::size_t i = 0; i < 15; ++i) {
    if (i != 8 && (text[i] < '0' || text[i] > '9')) return false;
  }
  return true;
}

// Fields a hop writes for itself, or that a proxy may change on the way: signing
// them would make a correct request fail.
bool is_unsigned_field(std::string_view lower_name) {
  static constexpr std::array<std::string_view, 11> kNames = {
      "authorization", "connection",          "content-length",   "expect",
      "keep-alive",    "proxy-authorization", "proxy-connection", "te",
      "trailer",       "transfer-encoding",   "upgrade"};
  for (const std::string_view name : kNames) {
    if (name == lower_name) return true;
  }
  return false;
}

// The scope's missing service and region from the host's first two labels.
Result<void> default_from_host(AwsSigV4Scope& scope, std::string_view host, bool need_region) {
  const std::size_t dot = host.find('.');
  if (dot == std::string_view::npos) {
    return scope_error("no service given, and the host name '" + std::string(host) +
                       "' has no dot to take one from (give provider:provider:region:service)");
  }
  scope.service = std::string(host.substr(0, dot));
  if (!need_region) return {};
  const std::size_t next = host.find('.', dot + 1);
  if (next == std::string_view::npos) {
    return scope_error("no region given, and the host name '" + std::string(host) +
                       "' has no second label to take one from");
  }
  scope.region = std::string(host.substr(dot + 1, next - dot - 1));
  return {};
}

// "amz" as curl writes it in a header name: "Amz".
std::string capitalised(std::string_view provider) {
  std::string out = ascii_lowercase(provider);
  if (!out.empty()) out[0] = ascii_uppercase(out.substr(0, 1))[0];
  return out;
}

// The fields a hop signs: host and the request's own, with the time and payload hash
// the request may give itself (x-amz-date, x-amz-content-sha256).
struct HopFields {
  std::vector<Header> fields;
  std::string timestamp;
  std::string payload_hash;
};

HopFields hop_fields(const AwsSigV4Request& request, const AwsSigV4Scope& scope) {
  const std::string date_name = "x-" + scope.provider2 + "-date";
  const std::string sha_name = "x-" + scope.provider2 + "-content-sha256";
  HopFields hop;
  hop.fields.push_back({"host", std::string(request.authority)});
  if (request.headers == nullptr) return hop;
  for (const Header& field : *request.headers) {
    const std::string name = ascii_lowercase(field.name);
    if (is_unsigned_field(name) || name == "host") continue;
    if (name == date_name) hop.timestamp = field.value;
    if (name == sha_name) hop.payload_hash = field.value;
    hop.fields.push_back(field);
  }
  return hop;
}

}  // namespace

Result<AwsSigV4Scope> AwsSigV4Scope::parse(std::string_view text, std::string_view host) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  // The fourth part, the service, takes the rest, as curl reads it.
  while (parts.size() < 3) {
    const std::size_t colon = text.find(':', start);
    if (colon == std::string_view::npos) break;
    parts.push_back(text.substr(start, colon - start));
    start = colon + 1;
  }
  parts.push_back(text.substr(start));
  static constexpr std::array<const char*, 4> kWhat = {"the first provider", "the second provider",
                                                       "the region", "the service"};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const bool ok = i < 2 ? is_provider(parts[i]) : is_scope_part(parts[i]);
    if (!ok) {
      return scope_error(std::string(kWhat[i]) + " '" + std::string(parts[i]) +
                         (parts[i].empty() ? "' is empty" : "' holds characters it cannot"));
    }
  }
  AwsSigV4Scope scope;
  scope.provider1 = ascii_lowercase(parts[0]);
  scope.provider2 = ascii_lowercase(parts.size() > 1 ? parts[1] : parts[0]);
  if (parts.size() > 2) scope.region = std::string(parts[2]);
  if (parts.size() > 3) {
    scope.service = std::string(parts[3]);
  } else if (auto found = default_from_host(scope, host, parts.size() < 3); !found) {
    return std::move(found).error();
  }
  return scope;
}

std::string aws_sigv4_signing_key(const AwsSigV4Scope& scope, std::string_view secret_key,
                                  std::string_view date) {
  std::string key =
      hmac_sha256(ascii_uppercase(scope.provider1) + "4" + std::string(secret_key), date);
  key = hmac_sha256(key, scope.region);
  key = hmac_sha256(key, scope.service);
  return hmac_sha256(key, scope.provider1 + "4_request");
}

Result<AwsSigV4Signature> aws_sigv4_sign(const AwsSigV4Scope& scope, std::string_view access_key,
                                         std::string_view secret_key,
                                         const AwsSigV4Request& request,
                                         std::chrono::system_clock::time_point now) {
  if (has_control_character(access_key) || has_control_character(secret_key) ||
      access_key.find(',') != std::string_view::npos) {
    return Error(ErrorCategory::usage,
                 "--aws-sigv4: the access key or secret holds a character a header cannot carry");
  }
  AwsSigV4Signature signature;
  HopFields hop = hop_fields(request, scope);
  if (hop.timestamp.empty()) {
    hop.timestamp = timestamp_of(now);
    signature.headers.add("X-" + capitalised(scope.provider2) + "-Date", hop.timestamp);
    hop.fields.push_back({"x-" + scope.provider2 + "-date", hop.timestamp});
  } else if (!is_timestamp(hop.timestamp)) {
    return Error(ErrorCategory::usage, "--aws-sigv4: the request's x-" + scope.provider2 +
                                           "-date '" + hop.timestamp +
                                           "' is not of the form 20150830T123600Z");
  }
  if (hop.payload_hash.empty()) {
    hop.payload_hash = request.payload ? hex_digest(HashAlgorithm::sha256, *request.payload)
                                       : std::string("UNSIGNED-PAYLOAD");
    if (scope.is_s3()) {
      const std::string name = "x-" + scope.provider2 + "-content-sha256";
      signature.headers.add(name, hop.payload_hash);
      hop.fields.push_back({name, hop.payload_hash});
    }
  }
  const AwsCanonicalHeaders canonical = aws_canonical_headers(hop.fields);
  signature.canonical_request = std::string(request.method) + '\n' +
                                aws_canonical_uri(request.path, scope.is_s3()) + '\n' +
                                aws_canonical_query(request.query) + '\n' + canonical.block + '\n' +
                                canonical.names + '\n' + hop.payload_hash;
  const std::string date = hop.timestamp.substr(0, 8);
  const std::string credential_scope =
      date + '/' + scope.region + '/' + scope.service + '/' + scope.provider1 + "4_request";
  const std::string algorithm = ascii_uppercase(scope.provider1) + "4-HMAC-SHA256";
  signature.string_to_sign = algorithm + '\n' + hop.timestamp + '\n' + credential_scope + '\n' +
                             hex_digest(HashAlgorithm::sha256, signature.canonical_request);
  const std::string mac =
      hmac_sha256(aws_sigv4_signing_key(scope, secret_key, date), signature.string_to_sign);
  signature.headers.add("Authorization", algorithm + " Credential=" + std::string(access_key) +
                                             '/' + credential_scope + ", SignedHeaders=" +
                                             canonical.names + ", Signature=" + to_hex(mac));
  return signature;
}

}  // namespace sluice
