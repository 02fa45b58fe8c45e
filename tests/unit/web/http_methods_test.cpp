// is_idempotent_method(): RFC 9110 section 9.2.2, which decides whether the client
// sends a request again when its pooled connection turned out dead.
#include <gtest/gtest.h>

#include "sluice/request.hpp"

namespace sluice {
namespace {

TEST(IdempotentMethod, TheSafeMethodsPutAndDeleteAre) {
  for (const char* method : {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}) {
    EXPECT_TRUE(is_idempotent_method(method)) << method;
  }
}

TEST(IdempotentMethod, PostPatchConnectAndUnknownMethodsAreNot) {
  for (const char* method : {"POST", "PATCH", "CONNECT", "PROPFIND", "QUERY", ""}) {
    EXPECT_FALSE(is_idempotent_method(method)) << method;
  }
}

// Method names are case-sensitive (RFC 9110 section 9.1): "get" is another method.
TEST(IdempotentMethod, NamesAreCaseSensitive) {
  EXPECT_FALSE(is_idempotent_method("get"));
  EXPECT_FALSE(is_idempotent_method("Put"));
  EXPECT_FALSE(is_idempotent_method("GET "));
}

}  // namespace
}  // namespace sluice
