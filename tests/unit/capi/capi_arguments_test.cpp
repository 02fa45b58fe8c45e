// The C API refuses bad arguments with a code and a message, never a crash: NULL
// handles and outputs, handles of the wrong kind or already freed (while their
// memory is still the handle's), text with NUL, CR or LF, values out of range.
// No network: nothing here sends a request.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>

#include "sluice/sluice.h"

namespace {

// Asserts `code` is SLUICE_E_INVALID_ARGUMENT and the message names `function`.
void expect_invalid(sluice_code code, const char* function) {
  EXPECT_EQ(code, SLUICE_E_INVALID_ARGUMENT) << sluice_code_name(code);
  EXPECT_NE(std::string(sluice_last_error()).find(function), std::string::npos)
      << "message: " << sluice_last_error();
}

TEST(CapiArguments, NullHandlesAndOutputsAreRefused) {
  sluice_client_options* options = nullptr;
  expect_invalid(sluice_client_options_new(nullptr), "sluice_client_options_new");
  expect_invalid(sluice_client_options_set_insecure(nullptr, 1),
                 "sluice_client_options_set_insecure");
  expect_invalid(sluice_client_new(nullptr, nullptr), "sluice_client_new");
  expect_invalid(sluice_client_get_stats(nullptr, nullptr, 0), "sluice_client_get_stats");
  expect_invalid(sluice_client_save_state(nullptr), "sluice_client_save_state");
  expect_invalid(sluice_request_new("GET", 3, "http://x/", 9, nullptr), "sluice_request_new");
  expect_invalid(sluice_request_add_header(nullptr, "a", 1, "b", 1), "sluice_request_add_header");
  expect_invalid(sluice_request_set_allowance(nullptr, 10, 10), "sluice_request_set_allowance");
  expect_invalid(sluice_client_fetch(nullptr, nullptr, nullptr), "sluice_client_fetch");
  sluice_response* response = reinterpret_cast<sluice_response*>(&options);
  expect_invalid(sluice_client_fetch(nullptr, nullptr, &response), "sluice_client_fetch");
  EXPECT_EQ(response, nullptr) << "an output is cleared on failure";
  expect_invalid(sluice_pending_wait(nullptr, &response), "sluice_pending_wait");
  expect_invalid(sluice_pending_cancel(nullptr, nullptr, 0), "sluice_pending_cancel");
  char buffer[16];
  size_t n = 0;
  expect_invalid(sluice_response_read(nullptr, buffer, sizeof buffer, &n), "sluice_response_read");
  const uint8_t* data = nullptr;
  expect_invalid(sluice_response_next(nullptr, 0, &data, &n), "sluice_response_next");
  expect_invalid(sluice_body_writer_write(nullptr, "x", 1), "sluice_body_writer_write");
  EXPECT_EQ(sluice_response_status(nullptr), 0);
  EXPECT_EQ(sluice_response_header_count(nullptr), 0u);
  // Every free takes NULL.
  sluice_client_options_free(nullptr);
  sluice_client_free(nullptr);
  sluice_request_free(nullptr);
  sluice_body_writer_free(nullptr);
  sluice_pending_free(nullptr);
  sluice_response_free(nullptr);
}

TEST(CapiArguments, AHandleOfAnotherKindIsRefused) {
  sluice_request* request = nullptr;
  ASSERT_EQ(sluice_request_new("GET", 3, "http://127.0.0.1/", 17, &request), SLUICE_OK);
  // A request passed where options are expected: its tag says it is not options.
  auto* as_options = reinterpret_cast<sluice_client_options*>(request);
  expect_invalid(sluice_client_options_set_insecure(as_options, 1),
                 "sluice_client_options_set_insecure");
  sluice_request_free(request);
}

TEST(CapiArguments, TextWithNulCrOrLfIsRefused) {
  sluice_request* request = nullptr;
  expect_invalid(sluice_request_new("GET", 3, "http://a\0b/", 11, &request), "sluice_request_new");
  EXPECT_EQ(sluice_request_new("GE T", 4, "http://a/", 9, &request), SLUICE_E_USAGE);
  EXPECT_NE(std::string(sluice_last_error()).find("not an HTTP token"), std::string::npos)
      << sluice_last_error();
  ASSERT_EQ(sluice_request_new("GET", 3, "http://a/", 9, &request), SLUICE_OK);
  EXPECT_EQ(sluice_request_add_header(request, "X-A", 3, "one\r\nInjected: yes", 18),
            SLUICE_E_USAGE);
  EXPECT_EQ(sluice_request_add_header(request, "X A", 3, "v", 1), SLUICE_E_USAGE);
  EXPECT_EQ(sluice_request_add_header(request, "X-A", 3, "v\0w", 3), SLUICE_E_USAGE);
  EXPECT_EQ(sluice_request_add_header(request, "X-A", 3, "fine", 4), SLUICE_OK);
  sluice_request_free(request);
}

TEST(CapiArguments, OutOfRangeValuesAreRefused) {
  sluice_request* request = nullptr;
  ASSERT_EQ(sluice_request_new("GET", 3, "http://a/", 9, &request), SLUICE_OK);
  expect_invalid(sluice_request_set_allowance(request, 0, 10), "sluice_request_set_allowance");
  expect_invalid(sluice_request_set_allowance(request, 10, 0), "sluice_request_set_allowance");
  expect_invalid(sluice_request_set_allowance(request, 20, 10), "sluice_request_set_allowance");
  expect_invalid(sluice_request_set_version(request, static_cast<sluice_version_policy>(42)),
                 "sluice_request_set_version");
  expect_invalid(sluice_request_set_timeout_ms(request, static_cast<sluice_timeout>(9), 5),
                 "sluice_request_set_timeout_ms");
  expect_invalid(sluice_request_set_redirects(request, SLUICE_REDIRECT_FOLLOW, -1),
                 "sluice_request_set_redirects");
  expect_invalid(sluice_request_set_redirect_rules(request, 8, nullptr, 0),
                 "sluice_request_set_redirect_rules");
  expect_invalid(sluice_request_set_redirect_rules(request, 0, nullptr, 2),
                 "sluice_request_set_redirect_rules");
  expect_invalid(sluice_request_set_redirect_rules(nullptr, 0, nullptr, 0),
                 "sluice_request_set_redirect_rules");
  sluice_body_writer* writer = nullptr;
  expect_invalid(sluice_body_writer_new(0, &writer), "sluice_body_writer_new");
  sluice_request_free(request);
}

TEST(CapiArguments, AnUnusableOptionFailsTheClientWithItsMessage) {
  sluice_client_options* options = nullptr;
  ASSERT_EQ(sluice_client_options_new(&options), SLUICE_OK);
  const std::string missing = "/nonexistent/ca.pem";
  ASSERT_EQ(sluice_client_options_set_ca_file(options, missing.data(), missing.size()), SLUICE_OK);
  sluice_client* client = nullptr;
  const sluice_code code = sluice_client_new(options, &client);
  EXPECT_GE(code, 100) << sluice_code_name(code);
  EXPECT_EQ(client, nullptr);
  EXPECT_NE(std::string(sluice_last_error()).find(missing), std::string::npos)
      << sluice_last_error();
  sluice_client_options_free(options);
}

TEST(CapiArguments, AProxyOfAnotherSchemeFailsTheClientNamingIt) {
  sluice_client_options* options = nullptr;
  ASSERT_EQ(sluice_client_options_new(&options), SLUICE_OK);
  expect_invalid(sluice_client_options_set_proxy(options, nullptr, 3),
                 "sluice_client_options_set_proxy");
  expect_invalid(sluice_client_options_set_no_proxy(nullptr, "a", 1),
                 "sluice_client_options_set_no_proxy");
  const std::string proxy = "socks4://127.0.0.1:1080";
  ASSERT_EQ(sluice_client_options_set_proxy(options, proxy.data(), proxy.size()), SLUICE_OK);
  ASSERT_EQ(sluice_client_options_set_proxy_tunnel(options, 1), SLUICE_OK);
  sluice_client* client = nullptr;
  EXPECT_EQ(sluice_client_new(options, &client), SLUICE_E_USAGE);
  EXPECT_EQ(client, nullptr);
  EXPECT_NE(std::string(sluice_last_error()).find("socks4://"), std::string::npos)
      << sluice_last_error();
  sluice_client_options_free(options);
  EXPECT_STREQ(sluice_code_name(SLUICE_E_PROXY_REFUSED), "proxy_refused");
  EXPECT_STREQ(sluice_category_name(SLUICE_E_PROXY_REFUSED), "connect");
}

TEST(CapiArguments, RoutingOptionsRefuseBadArgumentsAndBadEntriesFailTheClient) {
  sluice_client_options* options = nullptr;
  ASSERT_EQ(sluice_client_options_new(&options), SLUICE_OK);
  expect_invalid(sluice_client_options_set_ip_version(options, 5),
                 "sluice_client_options_set_ip_version");
  expect_invalid(sluice_client_options_add_resolve(options, nullptr, 4),
                 "sluice_client_options_add_resolve");
  expect_invalid(sluice_client_options_set_unix_socket(nullptr, "/x", 2),
                 "sluice_client_options_set_unix_socket");
  ASSERT_EQ(sluice_client_options_set_ip_version(options, 6), SLUICE_OK);
  ASSERT_EQ(sluice_client_options_set_dns_timeout_ms(options, 500), SLUICE_OK);
  ASSERT_EQ(sluice_client_options_set_happy_eyeballs_delay_ms(options, 100), SLUICE_OK);
  const std::string entry = "example.org:443:not-an-address";
  ASSERT_EQ(sluice_client_options_add_resolve(options, entry.data(), entry.size()), SLUICE_OK);
  sluice_client* client = nullptr;
  EXPECT_EQ(sluice_client_new(options, &client), SLUICE_E_USAGE);
  EXPECT_EQ(client, nullptr);
  EXPECT_NE(std::string(sluice_last_error()).find("'not-an-address' is not an IP address"),
            std::string::npos)
      << sluice_last_error();
  sluice_client_options_free(options);
  EXPECT_STREQ(sluice_code_name(SLUICE_E_DNS_TIMEOUT), "dns_timeout");
  EXPECT_STREQ(sluice_category_name(SLUICE_E_DNS_TIMEOUT), "timeout");
}

TEST(CapiArguments, LocalBindingOptionsAreChecked) {
  sluice_client_options* options = nullptr;
  ASSERT_EQ(sluice_client_options_new(&options), SLUICE_OK);
  expect_invalid(sluice_client_options_set_local_port(options, 65500, 100),
                 "sluice_client_options_set_local_port");
  expect_invalid(sluice_client_options_set_local_port(options, 4000, 0),
                 "sluice_client_options_set_local_port");
  expect_invalid(sluice_client_options_set_interface(options, nullptr, 2),
                 "sluice_client_options_set_interface");
  ASSERT_EQ(sluice_client_options_set_local_port(options, 40000, 10), SLUICE_OK);
  ASSERT_EQ(sluice_client_options_set_interface(options, "nosuch0", 7), SLUICE_OK);
  sluice_client* client = nullptr;
  EXPECT_EQ(sluice_client_new(options, &client), SLUICE_E_LOCAL_BIND);
  EXPECT_EQ(client, nullptr);
  EXPECT_STREQ(sluice_last_error(), "interface: no network interface named nosuch0");
  sluice_client_options_free(options);
  EXPECT_STREQ(sluice_code_name(SLUICE_E_LOCAL_BIND), "local_bind_failed");
  EXPECT_STREQ(sluice_category_name(SLUICE_E_LOCAL_BIND), "connect");
  const char* ip = nullptr;
  size_t len = 0;
  uint16_t port = 0;
  EXPECT_EQ(sluice_response_local_address(nullptr, &ip, &len, &port), SLUICE_E_INVALID_ARGUMENT);
}

TEST(CapiArguments, AuthenticationArgumentsAreChecked) {
  sluice_request* request = nullptr;
  ASSERT_EQ(sluice_request_new("GET", 3, "http://x/", 9, &request), SLUICE_OK);
  expect_invalid(sluice_request_set_basic_auth(request, nullptr, 1, "p", 1),
                 "sluice_request_set_basic_auth");
  expect_invalid(sluice_request_set_basic_auth(request, "u\0v", 3, "p", 1),
                 "sluice_request_set_basic_auth");
  expect_invalid(sluice_request_set_bearer_token(nullptr, "t", 1),
                 "sluice_request_set_bearer_token");
  EXPECT_EQ(sluice_request_set_basic_auth(request, "u", 1, "", 0), SLUICE_OK);
  EXPECT_EQ(sluice_request_set_bearer_token(request, "t", 1), SLUICE_OK);
  sluice_request_free(request);
}

TEST(CapiArguments, FormArgumentsAreChecked) {
  sluice_request* request = nullptr;
  ASSERT_EQ(sluice_request_new("POST", 4, "http://x/", 9, &request), SLUICE_OK);
  expect_invalid(sluice_request_add_form_field(nullptr, "a", 1, "b", 1),
                 "sluice_request_add_form_field");
  expect_invalid(sluice_request_add_form_field(request, "", 0, "b", 1),
                 "sluice_request_add_form_field");
  expect_invalid(sluice_request_add_form_field(request, "a", 1, nullptr, 1),
                 "sluice_request_add_form_field");
  expect_invalid(sluice_request_add_form_file(request, "f", 1, nullptr, 0, nullptr, 0, nullptr, 0),
                 "sluice_request_add_form_file");
  expect_invalid(sluice_request_add_form_file(request, "f", 1, "/p", 2, "n\0m", 3, nullptr, 0),
                 "sluice_request_add_form_file");
  EXPECT_EQ(sluice_request_add_form_field(request, "a", 1, "", 0), SLUICE_OK);
  EXPECT_EQ(sluice_request_add_form_file(request, "f", 1, "/p", 2, nullptr, 0, nullptr, 0),
            SLUICE_OK);
  sluice_request_free(request);
}

TEST(CapiArguments, CodesHaveNamesAndCategories) {
  EXPECT_STREQ(sluice_code_name(SLUICE_OK), "ok");
  EXPECT_STREQ(sluice_code_name(SLUICE_WOULD_BLOCK), "would_block");
  EXPECT_STREQ(sluice_code_name(SLUICE_E_IDLE_TIMEOUT), "idle_timeout");
  EXPECT_STREQ(sluice_category_name(SLUICE_E_IDLE_TIMEOUT), "timeout");
  EXPECT_STREQ(sluice_code_name(SLUICE_E_INVALID_ARGUMENT), "invalid_argument");
  EXPECT_STREQ(sluice_category_name(SLUICE_E_INVALID_ARGUMENT), "usage");
  EXPECT_STREQ(sluice_code_name(SLUICE_E_OUT_OF_MEMORY), "out_of_memory");
  EXPECT_STREQ(sluice_code_name(12345), "unknown");
  EXPECT_STREQ(sluice_category_name(SLUICE_OK), "");
  EXPECT_STREQ(sluice_version(), SLUICE_VERSION_STRING);
  EXPECT_EQ(sluice_version_num(), static_cast<unsigned>(SLUICE_VERSION_NUM));
}

TEST(CapiArguments, TheLastErrorIsPerThread) {
  expect_invalid(sluice_client_new(nullptr, nullptr), "sluice_client_new");
  std::string other;
  std::thread([&] { other = sluice_last_error(); }).join();
  EXPECT_EQ(other, "") << "another thread saw this thread's error";
  EXPECT_NE(std::string(sluice_last_error()), "");
}

}  // namespace
