#include "http3/h3_error_names.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(H3ErrorNames, KnownCodesHaveTheirRfcNames) {
  EXPECT_EQ(h3_error_name(0x100), "H3_NO_ERROR");
  EXPECT_EQ(h3_error_name(0x10b), "H3_REQUEST_REJECTED");
  EXPECT_EQ(h3_error_name(0x10c), "H3_REQUEST_CANCELLED");
  EXPECT_EQ(h3_error_name(0x200), "QPACK_DECOMPRESSION_FAILED");
  EXPECT_EQ(quic_error_name(0x0), "NO_ERROR");
  EXPECT_EQ(quic_error_name(0x3), "FLOW_CONTROL_ERROR");
  EXPECT_EQ(quic_error_name(0x10), "NO_VIABLE_PATH");
}

TEST(H3ErrorNames, CryptoErrorsNameTheTlsAlert) {
  EXPECT_EQ(quic_error_name(0x100 + 42), "CRYPTO_ERROR (TLS alert 42)");
  EXPECT_EQ(quic_error_name(0x100 + 120), "CRYPTO_ERROR (TLS alert 120)");
}

TEST(H3ErrorNames, UnknownCodesAreShownInHex) {
  EXPECT_EQ(h3_error_name(0x1f), "error 0x1f");
  EXPECT_EQ(h3_error_name(0x21), "error 0x21");  // a reserved (greased) code
  EXPECT_EQ(quic_error_name(0x4000), "error 0x4000");
}

}  // namespace
}  // namespace sluice
