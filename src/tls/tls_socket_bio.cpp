#include "tls/tls_socket_bio.hpp"

#include <openssl/bio.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>

namespace sluice {
namespace {

int fd_of(BIO* bio) { return static_cast<int>(reinterpret_cast<std::intptr_t>(BIO_get_data(bio))); }

int socket_bio_write(BIO* bio, const char* data, int size) noexcept {
  BIO_clear_retry_flags(bio);
  for (;;) {
    const ssize_t sent = send(fd_of(bio), data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
    if (sent >= 0) return static_cast<int>(sent);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_write(bio);
    return -1;  // errno stays for SSL_ERROR_SYSCALL
  }
}

int socket_bio_read(BIO* bio, char* data, int size) noexcept {
  BIO_clear_retry_flags(bio);
  for (;;) {
    const ssize_t got = recv(fd_of(bio), data, static_cast<std::size_t>(size), 0);
    if (got > 0) return static_cast<int>(got);
    if (got == 0) {
      // libssl asks BIO_eof() to tell a closed stream from a failed read: a close
      // without close_notify then reads as SSL_R_UNEXPECTED_EOF_WHILE_READING.
      if (size > 0) BIO_set_flags(bio, BIO_FLAGS_IN_EOF);
      return 0;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_read(bio);
    return -1;
  }
}

long socket_bio_ctrl(BIO* bio, int command, long, void* pointer) noexcept {
  switch (command) {
    case BIO_CTRL_FLUSH: return 1;  // nothing is buffered here
    case BIO_CTRL_EOF: return BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0 ? 1 : 0;
    case BIO_C_GET_FD:
      if (pointer != nullptr) *static_cast<int*>(pointer) = fd_of(bio);
      return fd_of(bio);
    default: return 0;
  }
}

int socket_bio_create(BIO* bio) noexcept {
  BIO_set_data(bio, nullptr);
  BIO_set_init(bio, 0);
  return 1;
}

// Created once, lives for the process (BIO_METHODs are shared, read-only tables).
const BIO_METHOD* socket_bio_method() {
  static BIO_METHOD* const method = [] {
    BIO_METHOD* created = BIO_meth_new(
        BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "sluice socket");
    if (created == nullptr) return created;
    BIO_meth_set_write(created, socket_bio_write);
    BIO_meth_set_read(created, socket_bio_read);
    BIO_meth_set_ctrl(created, socket_bio_ctrl);
    BIO_meth_set_create(created, socket_bio_create);
    return created;
  }();
  return method;
}

}  // namespace

BIO* make_socket_bio(int fd) {
  const BIO_METHOD* method = socket_bio_method();
  if (method == nullptr) return nullptr;
  BIO* bio = BIO_new(method);
  if (bio == nullptr) return nullptr;
  BIO_set_data(bio, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)));
  BIO_set_init(bio, 1);
  return bio;
}

}  // namespace sluice
