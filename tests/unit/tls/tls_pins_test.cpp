// Public key pins: curl's sha256//BASE64 lists, a PEM or DER public key file, and a
// mismatch message that names the server's pin and the expected ones.
#include "tls/tls_pins.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace sluice {
namespace {

const std::string kPinA = "YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=";
const std::string kPinB = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

// A fresh P-256 key's DER SubjectPublicKeyInfo, and the key written to `pem` and `der`.
std::string write_key_files(const std::string& pem, const std::string& der) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  unsigned char* out = nullptr;
  const int length = i2d_PUBKEY(key, &out);
  std::string spki(reinterpret_cast<const char*>(out), static_cast<std::size_t>(length));
  OPENSSL_free(out);
  std::FILE* file = std::fopen(pem.c_str(), "w");
  PEM_write_PUBKEY(file, key);
  std::fclose(file);
  file = std::fopen(der.c_str(), "wb");
  std::fwrite(spki.data(), 1, spki.size(), file);
  std::fclose(file);
  EVP_PKEY_free(key);
  return spki;
}

TEST(TlsPins, ParsesAListOfSha256Pins) {
  auto pins = parse_public_key_pins("sha256//" + kPinA + ";sha256//" + kPinB);
  ASSERT_TRUE(pins.ok()) << pins.error().message();
  ASSERT_EQ(pins->sha256.size(), 2u);
  EXPECT_EQ(pins->sha256[0], kPinA);
  EXPECT_EQ(pins->sha256[1], kPinB);
  EXPECT_TRUE(parse_public_key_pins("")->empty());
}

TEST(TlsPins, BadEntriesAreNamed) {
  for (const std::string& bad :
       {std::string("sha256//short"), "sha256//" + kPinA + ";", "sha256//" + kPinA + ";md5//x",
        "sha256//" + kPinA.substr(0, 43) + "!"}) {
    auto pins = parse_public_key_pins(bad);
    ASSERT_FALSE(pins.ok()) << bad;
    EXPECT_NE(pins.error().message().find("bad public key pin"), std::string::npos)
        << pins.error().message();
  }
}

TEST(TlsPins, APemOrDerKeyFileGivesThePinOfItsKey) {
  const std::string base = "/tmp/sluice-pin-test-" + std::to_string(::getpid());
  const std::string spki = write_key_files(base + ".pem", base + ".der");
  const std::string expected =
      public_key_pin(std::span(reinterpret_cast<const unsigned char*>(spki.data()), spki.size()));
  EXPECT_EQ(expected.size(), 44u);
  for (const std::string& path : {base + ".pem", base + ".der"}) {
    auto pins = parse_public_key_pins(path);
    ASSERT_TRUE(pins.ok()) << path << ": " << pins.error().message();
    ASSERT_EQ(pins->sha256.size(), 1u);
    EXPECT_EQ(pins->sha256[0], expected) << path;
  }
  ::unlink((base + ".pem").c_str());
  ::unlink((base + ".der").c_str());
  auto missing = parse_public_key_pins(base + ".pem");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find(base + ".pem"), std::string::npos);
}

TEST(TlsPins, AMismatchNamesBothPins) {
  PublicKeyPins pins{{kPinA, kPinB}};
  EXPECT_TRUE(check_public_key_pin(pins, kPinB, "example.org").ok());
  auto mismatch = check_public_key_pin(pins, "ZZZ=", "example.org");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.error().code(), ErrorCode::tls_pinned_key);  // curl's 90
  EXPECT_EQ(mismatch.error().message(),
            "TLS: public key of example.org is sha256//ZZZ=, which does not match the pinned "
            "sha256//" +
                kPinA + " or sha256//" + kPinB);
}

}  // namespace
}  // namespace sluice
