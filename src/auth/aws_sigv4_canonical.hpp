#pragma once
// The canonical forms AWS Signature Version 4 hashes: a request's path, query and
// headers written one way only, so that client and server, each from the request it
// sees, arrive at the same bytes. Pure text functions, tested with AWS's published
// examples.
// Ownership: free functions; any thread.

#include <string>
#include <string_view>
#include <vector>

#include "sluice/headers.hpp"

namespace sluice {

/// The canonical URI of `path` as it goes on the request line (already
/// percent-encoded). S3 (`s3`): the path as S3 stores keys, each byte encoded once
/// (escapes normalised: "%7e" and "~" are the same), no dot segments removed. Every
/// other service: dot segments and empty segments removed (RFC 3986 section 5.2.4),
/// then the path as sent is encoded once more, so a '%' on the wire becomes "%25":
/// the spec's "encoded twice", which AWS services check.
std::string aws_canonical_uri(std::string_view path, bool s3);

/// The canonical query string of `query` (without the '?', as sent): each name and
/// value decoded and encoded again (unreserved characters as they are, every other
/// byte %XX in capitals), a name without '=' given an empty value, sorted by name and
/// then value, joined with '&'.
std::string aws_canonical_query(std::string_view query);

struct AwsCanonicalHeaders {
  std::string block;  ///< "name:value\n" per name, sorted by name
  std::string names;  ///< the names joined with ';' ("host;x-amz-date")
};

/// The canonical headers of `fields`: names lowercased, values trimmed with inner runs
/// of spaces made one, the values of a repeated name joined with ',' in order.
AwsCanonicalHeaders aws_canonical_headers(const std::vector<Header>& fields);

/// Bytes as AWS encodes them: A-Z a-z 0-9 - . _ ~ as they are, the rest %XX (capitals).
std::string aws_uri_encode(std::string_view bytes);

}  // namespace sluice
