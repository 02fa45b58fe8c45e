// Test bodies: the generator, SHA-256 and BodyQueue (see test_body.hpp).

#include "support/test_body.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace sluice::test {
namespace {

// The generator is random-access: byte p is byte p % 8 (little-endian) of a
// 64-bit word made from (seed, p / 8), so any piece of a body can be made without
// the pieces before it.
static_assert(std::endian::native == std::endian::little,
              "fill_generated copies words in little-endian byte order");

// A 64-bit finalising mix (the one the splitmix generator uses): every input bit
// changes about half the output bits, so consecutive words look unrelated.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t word(std::uint64_t key, std::uint64_t index) { return mix(key ^ mix(index)); }

constexpr std::size_t kHashPiece = 1 << 20;

}  // namespace

void fill_generated(std::uint64_t seed, std::uint64_t offset, std::span<std::byte> out) {
  const std::uint64_t key = mix(seed);
  std::size_t i = 0;
  // Up to the next word boundary byte by byte, then whole words, then the tail.
  while (i < out.size() && (offset + i) % 8 != 0) {
    const std::uint64_t p = offset + i;
    out[i++] = static_cast<std::byte>(word(key, p / 8) >> (8 * (p % 8)));
  }
  for (; i + 8 <= out.size(); i += 8) {
    const std::uint64_t value = word(key, (offset + i) / 8);
    std::memcpy(out.data() + i, &value, 8);
  }
  for (; i < out.size(); ++i) {
    const std::uint64_t p = offset + i;
    out[i] = static_cast<std::byte>(word(key, p / 8) >> (8 * (p % 8)));
  }
}

std::string pattern(std::size_t size, char seed) {
  std::string text(size, '\0');
  for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>(seed + i % 23);
  return text;
}

std::string generated_bytes(std::uint64_t seed, std::uint64_t offset, std::size_t size) {
  std::string text(size, '\0');
  fill_generated(seed, offset, std::as_writable_bytes(std::span<char>(text)));
  return text;
}

std::string generated_sha256(std::uint64_t size, std::uint64_t seed) {
  Sha256 sha;
  std::vector<std::byte> piece(kHashPiece);
  for (std::uint64_t offset = 0; offset < size;) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), size - offset));
    fill_generated(seed, offset, std::span<std::byte>(piece.data(), n));
    sha.update(std::span<const std::byte>(piece.data(), n));
    offset += n;
  }
  return sha.hex_digest();
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
  if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("Sha256: EVP_DigestInit_ex failed");
  }
}

void Sha256::update(std::span<const std::byte> bytes) {
  EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size());
}

void Sha256::update(std::string_view text) { update(std::as_bytes(std::span<const char>(text))); }

std::string Sha256::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx_.get(), digest, &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

void BodyQueue::push(std::string bytes) {
  if (bytes.empty()) return;
  const std::uint64_t length = bytes.size();
  pieces_.push_back(Piece{std::move(bytes), length, 0, false, 0});
  size_ += length;
}

void BodyQueue::push_generated(std::uint64_t size, std::uint64_t seed) {
  if (size == 0) return;
  pieces_.push_back(Piece{{}, size, 0, true, seed});
  size_ += size;
}

// Drops `n` bytes of the front piece (n is at most what it has left).
void BodyQueue::advance(std::uint64_t n) {
  Piece& front = pieces_.front();
  front.done += n;
  size_ -= n;
  if (front.done == front.length) pieces_.pop_front();
}

std::size_t BodyQueue::read(std::span<std::byte> out) {
  std::size_t copied = 0;
  while (copied < out.size() && !pieces_.empty()) {
    const Piece& front = pieces_.front();
    const std::size_t n = static_cast<std::size_t>(
        std::min<std::uint64_t>(out.size() - copied, front.length - front.done));
    const std::span<std::byte> into = out.subspan(copied, n);
    if (front.generated) {
      fill_generated(front.seed, front.done, into);
    } else {
      std::memcpy(into.data(), front.bytes.data() + front.done, n);
    }
    copied += n;
    advance(n);
  }
  return copied;
}

std::string BodyQueue::take(std::size_t max) {
  if (pieces_.empty()) return {};
  Piece& front = pieces_.front();
  if (!front.generated && front.done == 0) {
    std::string whole = std::move(front.bytes);
    size_ -= front.length;
    pieces_.pop_front();
    return whole;
  }
  const std::size_t n =
      static_cast<std::size_t>(std::min<std::uint64_t>(max, front.length - front.done));
  std::string out(n, '\0');
  read(std::as_writable_bytes(std::span<char>(out)));
  return out;
}

}  // namespace sluice::test
