#include "quic/quic_error_names.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(QuicErrorNames, KnownCodesHaveTheirRfcNames) {
  EXPECT_EQ(quic_error_name(0x0), "NO_ERROR");
  EXPECT_EQ(quic_error_name(0x3), "FLOW_CONTROL_ERROR");
  EXPECT_EQ(quic_error_name(0x10), "NO_VIABLE_PATH");
}

TEST(QuicErrorNames, CryptoErrorsNameTheTlsAlert) {
  EXPECT_EQ(quic_error_name(0x100 + 42), "CRYPTO_ERROR (TLS alert 42)");
  EXPECT_EQ(quic_error_name(0x100 + 120), "CRYPTO_ERROR (TLS alert 120)");
}

TEST(QuicErrorNames, UnknownCodesAreShownInHex) {
  EXPECT_EQ(quic_error_name(0x4000), "error 0x4000");
  EXPECT_EQ(unnamed_error_code(0x1f), "error 0x1f");
}

}  // namespace
}  // namespace sluice
