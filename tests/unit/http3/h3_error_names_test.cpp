#include "http3/h3_error_names.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(H3ErrorNames, KnownCodesHaveTheirRfcNames) {
  EXPECT_EQ(h3_error_name(0x100), "H3_NO_ERROR");
  EXPECT_EQ(h3_error_name(0x10b), "H3_REQUEST_REJECTED");
  EXPECT_EQ(h3_error_name(0x10c), "H3_REQUEST_CANCELLED");
  EXPECT_EQ(h3_error_name(0x200), "QPACK_DECOMPRESSION_FAILED");
}

TEST(H3ErrorNames, UnknownCodesAreShownInHex) {
  EXPECT_EQ(h3_error_name(0x1f), "error 0x1f");
  EXPECT_EQ(h3_error_name(0x21), "error 0x21");  // a reserved (greased) code
}

}  // namespace
}  // namespace sluice
