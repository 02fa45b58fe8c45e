// A BIO whose bytes go through a Transport (see tls_transport_bio.hpp).

#include "tls/tls_transport_bio.hpp"

#include <openssl/bio.h>

#include <cstddef>
#include <span>

#include "net/transport.hpp"

namespace sluice {
namespace {

struct TransportBio {
  Transport* inner;
  std::optional<Error> error;
};

TransportBio& state_of(BIO* bio) { return *static_cast<TransportBio*>(BIO_get_data(bio)); }

// Maps an inner outcome to the BIO's return value and retry flags.
int settle(BIO* bio, Result<IoOutcome> outcome, bool reading) {
  TransportBio& state = state_of(bio);
  if (!outcome) {
    state.error = std::move(outcome).error();
    return -1;
  }
  switch (outcome->status) {
    case IoStatus::done: return static_cast<int>(outcome->bytes);
    case IoStatus::want_read: BIO_set_retry_read(bio); return -1;
    case IoStatus::want_write: BIO_set_retry_write(bio); return -1;
    case IoStatus::eof:
      if (reading) BIO_set_flags(bio, BIO_FLAGS_IN_EOF);
      return 0;
  }
  return -1;
}

int transport_bio_write(BIO* bio, const char* data, int size) noexcept {
  BIO_clear_retry_flags(bio);
  state_of(bio).error.reset();
  const auto bytes = std::as_bytes(std::span(data, static_cast<std::size_t>(size)));
  return settle(bio, state_of(bio).inner->write(bytes), false);
}

int transport_bio_read(BIO* bio, char* data, int size) noexcept {
  BIO_clear_retry_flags(bio);
  state_of(bio).error.reset();
  if (size <= 0) return 0;
  const auto into = std::as_writable_bytes(std::span(data, static_cast<std::size_t>(size)));
  return settle(bio, state_of(bio).inner->read(into), true);
}

long transport_bio_ctrl(BIO* bio, int command, long, void*) noexcept {
  switch (command) {
    case BIO_CTRL_FLUSH: return 1;  // the inner transport writes what it takes
    case BIO_CTRL_EOF: return BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0 ? 1 : 0;
    default: return 0;
  }
}

int transport_bio_create(BIO* bio) noexcept {
  BIO_set_data(bio, nullptr);
  BIO_set_init(bio, 0);
  return 1;
}

int transport_bio_destroy(BIO* bio) noexcept {
  delete static_cast<TransportBio*>(BIO_get_data(bio));
  BIO_set_data(bio, nullptr);
  return 1;
}

// Created once, lives for the process (BIO_METHODs are shared, read-only tables).
const BIO_METHOD* transport_bio_method() {
  static BIO_METHOD* const method = [] {
    BIO_METHOD* created =
        BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "sluice transport");
    if (created == nullptr) return created;
    BIO_meth_set_write(created, transport_bio_write);
    BIO_meth_set_read(created, transport_bio_read);
    BIO_meth_set_ctrl(created, transport_bio_ctrl);
    BIO_meth_set_create(created, transport_bio_create);
    BIO_meth_set_destroy(created, transport_bio_destroy);
    return created;
  }();
  return method;
}

}  // namespace

BIO* make_transport_bio(Transport& inner) {
  const BIO_METHOD* method = transport_bio_method();
  if (method == nullptr) return nullptr;
  BIO* bio = BIO_new(method);
  if (bio == nullptr) return nullptr;
  BIO_set_data(bio, new TransportBio{&inner, std::nullopt});
  BIO_set_init(bio, 1);
  return bio;
}

std::optional<Error> transport_bio_error(BIO* bio) {
  if (bio == nullptr || BIO_get_data(bio) == nullptr) return std::nullopt;
  return state_of(bio).error;
}

}  // namespace sluice
