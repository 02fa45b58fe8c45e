#pragma once
// An OpenSSL BIO over a connected socket that sends with MSG_NOSIGNAL, so a peer
// that went away is an error value, never SIGPIPE (OpenSSL's socket BIO uses
// write(), and a library must not change the process's signal handling).
// Ownership: the BIO belongs to the SSL it is set on; it never closes the fd.

typedef struct bio_st BIO;

namespace sluice {

/// A new BIO reading and writing `fd` (blocking or not); nullptr if out of memory.
BIO* make_socket_bio(int fd);

}  // namespace sluice
