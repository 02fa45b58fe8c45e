// The C API's boundary (capi/capi_call.hpp): whatever a body throws comes back as a
// code and a message on the calling thread, never as an exception into C. Memory
// running out is the case no request can provoke on demand, so it is thrown here.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "capi/capi_call.hpp"
#include "sluice/sluice.h"

namespace sluice::capi {
namespace {

TEST(CapiCall, BadAllocBecomesOutOfMemoryNamingTheFunction) {
  const sluice_code code =
      capi_call("sluice_example", []() -> sluice_code { throw std::bad_alloc(); });
  EXPECT_EQ(code, SLUICE_E_OUT_OF_MEMORY);
  EXPECT_STREQ(sluice_last_error(), "sluice_example: out of memory");
  EXPECT_STREQ(sluice_code_name(code), "out_of_memory");
}

TEST(CapiCall, OtherExceptionsBecomeUsageWithTheirMessage) {
  EXPECT_EQ(capi_call("sluice_example",
                      []() -> sluice_code { throw std::invalid_argument("bad thing"); }),
            SLUICE_E_USAGE);
  EXPECT_STREQ(sluice_last_error(), "sluice_example: bad thing");
  EXPECT_EQ(capi_call("sluice_example", []() -> sluice_code { throw 42; }), SLUICE_E_USAGE);
  EXPECT_STREQ(sluice_last_error(), "sluice_example: unexpected failure");
}

TEST(CapiCall, ASuccessKeepsTheLastErrorAndEachThreadHasItsOwn) {
  EXPECT_EQ(capi_call("sluice_example", []() -> sluice_code { throw std::bad_alloc(); }),
            SLUICE_E_OUT_OF_MEMORY);
  EXPECT_EQ(capi_call("sluice_example", [] { return ok(); }), SLUICE_OK);
  EXPECT_STREQ(sluice_last_error(), "sluice_example: out of memory") << "errno's rule";
  std::string other_thread_saw = "<not run>";
  std::thread([&other_thread_saw] { other_thread_saw = sluice_last_error(); }).join();
  EXPECT_EQ(other_thread_saw, "");
}

}  // namespace
}  // namespace sluice::capi
