#pragma once
// An OpenSSL BIO over another Transport: TLS inside TLS, for the target's session
// through an https:// proxy, whose own TLS session carries it. A would-block of the
// inner transport is a retry of the BIO (want_read or want_write, as the inner one
// said); its eof is the BIO's; an inner error fails the BIO and is kept for the
// message.
// Ownership: the BIO belongs to the SSL it is set on; the inner Transport belongs to
// the outer TlsTransport, which outlives the SSL's use of the BIO.

#include <optional>

#include "sluice/error.hpp"

typedef struct bio_st BIO;

namespace sluice {

class Transport;

/// A new BIO reading and writing `inner`; nullptr if out of memory.
BIO* make_transport_bio(Transport& inner);
/// The inner transport's last error, if the BIO failed on one (cleared by the next
/// read or write).
std::optional<Error> transport_bio_error(BIO* bio);

}  // namespace sluice
