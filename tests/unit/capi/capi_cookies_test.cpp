// The C API's cookie jar: bad arguments refused with a code and a message, a file
// saved and read back, the header a URL gets. No network.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <string>

#include "sluice/sluice.h"

namespace {

void expect_invalid(sluice_code code, const char* function) {
  EXPECT_EQ(code, SLUICE_E_INVALID_ARGUMENT) << sluice_code_name(code);
  EXPECT_NE(std::string(sluice_last_error()).find(function), std::string::npos)
      << "message: " << sluice_last_error();
}

TEST(CapiCookies, BadArgumentsAreRefused) {
  expect_invalid(sluice_cookie_jar_new(nullptr), "sluice_cookie_jar_new");
  expect_invalid(sluice_cookie_jar_load(nullptr, "f", 1, 0), "sluice_cookie_jar_load");
  expect_invalid(sluice_cookie_jar_save(nullptr, "f", 1), "sluice_cookie_jar_save");
  EXPECT_EQ(sluice_cookie_jar_count(nullptr), 0u);
  sluice_cookie_jar* jar = nullptr;
  ASSERT_EQ(sluice_cookie_jar_new(&jar), SLUICE_OK);
  expect_invalid(sluice_cookie_jar_load(jar, nullptr, 3, 0), "sluice_cookie_jar_load");
  expect_invalid(sluice_cookie_jar_load(jar, "", 0, 0), "sluice_cookie_jar_load");
  expect_invalid(sluice_cookie_jar_save(jar, "a\0b", 3), "sluice_cookie_jar_save");
  const char* out = nullptr;
  size_t out_len = 0;
  expect_invalid(sluice_cookie_jar_header(jar, "http://x/", 9, nullptr, &out_len),
                 "sluice_cookie_jar_header");
  EXPECT_EQ(sluice_cookie_jar_header(jar, "no url", 6, &out, &out_len), SLUICE_E_BAD_URL);
  const std::string missing = "/nonexistent/sluice/cookies.txt";
  EXPECT_EQ(sluice_cookie_jar_load(jar, missing.data(), missing.size(), 0), SLUICE_E_IO);
  EXPECT_NE(std::string(sluice_last_error()).find(missing), std::string::npos);

  expect_invalid(sluice_client_options_set_cookie_jar(nullptr, jar),
                 "sluice_client_options_set_cookie_jar");
  sluice_client_options* options = nullptr;
  ASSERT_EQ(sluice_client_options_new(&options), SLUICE_OK);
  EXPECT_EQ(sluice_client_options_set_cookie_jar(options, jar), SLUICE_OK);
  EXPECT_EQ(sluice_client_options_set_cookie_jar(options, nullptr), SLUICE_OK);
  sluice_cookie_jar_free(jar);
  // A live handle of another kind is refused by its tag. (A freed one is not read
  // here: that would be a use after free, which AddressSanitizer rightly reports.)
  expect_invalid(
      sluice_client_options_set_cookie_jar(options, reinterpret_cast<sluice_cookie_jar*>(options)),
      "sluice_client_options_set_cookie_jar");
  sluice_client_options_free(options);
  sluice_cookie_jar_free(nullptr);
}

TEST(CapiCookies, LoadsAFileAndGivesItsHeader) {
  const std::string path = "/tmp/sluice-capi-cookies-" + std::to_string(::getpid()) + ".txt";
  FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs(
      "# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tFALSE\t0\ta\t1\n"
      "example.com\tFALSE\t/\tTRUE\t0\ts\t2\n",
      file);
  std::fclose(file);
  sluice_cookie_jar* jar = nullptr;
  ASSERT_EQ(sluice_cookie_jar_new(&jar), SLUICE_OK);
  ASSERT_EQ(sluice_cookie_jar_load(jar, path.data(), path.size(), 0), SLUICE_OK);
  EXPECT_EQ(sluice_cookie_jar_count(jar), 2u);
  const char* out = nullptr;
  size_t out_len = 0;
  ASSERT_EQ(sluice_cookie_jar_header(jar, "https://example.com/", 20, &out, &out_len), SLUICE_OK);
  EXPECT_EQ(std::string(out, out_len), "a=1; s=2");
  ASSERT_EQ(sluice_cookie_jar_header(jar, "http://www.example.com/", 23, &out, &out_len),
            SLUICE_OK);
  EXPECT_EQ(std::string(out, out_len), "a=1");
  ASSERT_EQ(sluice_cookie_jar_save(jar, path.data(), path.size()), SLUICE_OK);
  sluice_cookie_jar* again = nullptr;
  ASSERT_EQ(sluice_cookie_jar_new(&again), SLUICE_OK);
  ASSERT_EQ(sluice_cookie_jar_load(again, path.data(), path.size(), 1), SLUICE_OK);
  EXPECT_EQ(sluice_cookie_jar_count(again), 0u);  // both were session cookies
  sluice_cookie_jar_free(again);
  sluice_cookie_jar_free(jar);
  std::remove(path.c_str());
}

}  // namespace
