#pragma once
// AWS Signature Version 4 (Authentication::Scheme::aws_sigv4, curl's --aws-sigv4):
// the scope a request is signed for, and the headers that sign one hop of it. Pure:
// the time is an input, so AWS's published examples are exact tests. FetchHops signs
// every hop anew, for its own host, path and time.
// Ownership: values and free functions; any thread.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/error.hpp"
#include "sluice/headers.hpp"

namespace sluice {

/// Who the signature is for: curl's "provider1[:provider2[:region[:service]]]".
struct AwsSigV4Scope {
  std::string provider1;  ///< lowercase: "aws" makes AWS4-HMAC-SHA256 and aws4_request
  std::string provider2;  ///< lowercase: "amz" makes X-Amz-Date
  std::string region;
  std::string service;

  /// Parses `scope` for a request to `host`. provider2 defaults to provider1; a
  /// service not given is the host's first label and a region not given its second
  /// (curl's rule: s3.us-west-2.amazonaws.com is s3 in us-west-2). Errors (usage)
  /// name --aws-sigv4: an empty part, or a host without the labels a default needs.
  static Result<AwsSigV4Scope> parse(std::string_view scope, std::string_view host);

  /// S3 signs its payload hash as a header and encodes paths once.
  bool is_s3() const noexcept { return service == "s3"; }
};

/// One hop as it goes out. The strings are views into the caller's request.
struct AwsSigV4Request {
  std::string_view method;
  std::string_view authority;  ///< the Host value (host[:port])
  std::string_view path;       ///< as sent (percent-encoded)
  std::string_view query;      ///< as sent, without '?'
  /// The request's own fields, all signed but for those a hop rewrites
  /// (Authorization, Connection, Expect, Transfer-Encoding ...). An
  /// x-<provider2>-date field gives the time; an x-<provider2>-content-sha256 field
  /// gives the payload hash.
  const Headers* headers = nullptr;
  /// The body, when in memory ("" for none); nullopt: UNSIGNED-PAYLOAD.
  std::optional<std::string_view> payload;
};

/// What signs the hop: fields to add, and the steps for a trace or a test.
struct AwsSigV4Signature {
  Headers headers;  ///< X-<Provider2>-Date, [x-<provider2>-content-sha256,] Authorization
  std::string canonical_request;
  std::string string_to_sign;
};

/// Signs `request` for `scope` with the key pair at `now` (UTC, whole seconds).
/// Errors (usage): a credential with a control character, or an
/// x-<provider2>-date field not of the form 20150830T123600Z.
Result<AwsSigV4Signature> aws_sigv4_sign(const AwsSigV4Scope& scope, std::string_view access_key,
                                         std::string_view secret_key,
                                         const AwsSigV4Request& request,
                                         std::chrono::system_clock::time_point now);

/// The derived signing key (HMAC-SHA256 of date, region, service and
/// "<provider1>4_request" in turn, from "<PROVIDER1>4" + secret), as raw bytes.
/// `date` is YYYYMMDD.
std::string aws_sigv4_signing_key(const AwsSigV4Scope& scope, std::string_view secret_key,
                                  std::string_view date);

}  // namespace sluice
