// src/cli/exit_codes.hpp: every library ErrorCode exits with curl's number for the
// same failure (man curl, EXIT CODES), or its category's where curl has none.

#include "cli/exit_codes.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::cli {
namespace {

struct CurlNumber {
  ErrorCode code;
  int exit_code;
};

class ExitCodeForEveryErrorCode : public ::testing::TestWithParam<CurlNumber> {};

TEST_P(ExitCodeForEveryErrorCode, IsCurlsNumberForTheSameFailure) {
  const CurlNumber expected = GetParam();
  EXPECT_EQ(exit_code_for(expected.code), expected.exit_code) << to_string(expected.code);
  EXPECT_EQ(exit_code_for(Error(expected.code, "any message")), expected.exit_code)
      << to_string(expected.code);
}

// The whole ErrorCode list, in its order: a code added to error.hpp belongs here too.
INSTANTIATE_TEST_SUITE_P(
    AllCodes, ExitCodeForEveryErrorCode,
    ::testing::Values(
        CurlNumber{ErrorCode::dns_failed, 6}, CurlNumber{ErrorCode::connect_failed, 7},
        CurlNumber{ErrorCode::proxy_refused, 56},  // CONNECT tunnel failed
        CurlNumber{ErrorCode::local_bind_failed, 45},
        CurlNumber{ErrorCode::proxy_handshake, 97},  // proxy handshake error
        CurlNumber{ErrorCode::tls_failed, 35}, CurlNumber{ErrorCode::tls_certificate, 60},
        CurlNumber{ErrorCode::tls_ca_file, 77},     // problem with the CA cert
        CurlNumber{ErrorCode::tls_pinned_key, 90},  // pinned public key mismatch
        CurlNumber{ErrorCode::protocol_error, 8},
        CurlNumber{ErrorCode::body_truncated, 18},  // partial file
        CurlNumber{ErrorCode::empty_reply, 52},     // empty reply from server
        CurlNumber{ErrorCode::http2_framing, 16},   // HTTP/2 framing layer
        CurlNumber{ErrorCode::http3_failed, 95},    // HTTP/3 layer
        CurlNumber{ErrorCode::timeout, 28}, CurlNumber{ErrorCode::connect_timeout, 28},
        CurlNumber{ErrorCode::first_byte_timeout, 28}, CurlNumber{ErrorCode::idle_timeout, 28},
        CurlNumber{ErrorCode::total_timeout, 28}, CurlNumber{ErrorCode::ping_timeout, 28},
        CurlNumber{ErrorCode::handshake_timeout, 28}, CurlNumber{ErrorCode::dns_timeout, 28},
        CurlNumber{ErrorCode::low_speed, 28},  // operation too slow
        CurlNumber{ErrorCode::cancelled, 42},  // aborted by callback
        CurlNumber{ErrorCode::too_large, 63}, CurlNumber{ErrorCode::too_many_redirects, 47},
        CurlNumber{ErrorCode::headers_too_large, 63}, CurlNumber{ErrorCode::decoded_too_large, 63},
        CurlNumber{ErrorCode::body_too_large, 63},  // maximum file size exceeded
        CurlNumber{ErrorCode::decode_failed, 61}, CurlNumber{ErrorCode::io_failed, 23},
        CurlNumber{ErrorCode::out_of_memory, 27},
        CurlNumber{ErrorCode::send_failed, 55},     // failed sending network data
        CurlNumber{ErrorCode::receive_failed, 56},  // failure in receiving network data
        CurlNumber{ErrorCode::usage, 2}, CurlNumber{ErrorCode::bad_url, 3},
        CurlNumber{ErrorCode::invalid_argument, 43}, CurlNumber{ErrorCode::http_status, 22},
        CurlNumber{ErrorCode::redirect_refused, 22}, CurlNumber{ErrorCode::insecure_redirect, 1}),
    [](const ::testing::TestParamInfo<CurlNumber>& param_info) {
      return std::string(to_string(param_info.param.code));
    });

TEST(ExitCodeFor, AnErrorMadeFromACategoryTakesItsGeneralCodesNumber) {
  EXPECT_EQ(exit_code_for(Error(ErrorCategory::protocol, "body ended early")), 8);
  EXPECT_EQ(exit_code_for(Error(ErrorCategory::tls, "certificate")), 35);
  EXPECT_EQ(exit_code_for(Error(ErrorCategory::too_large, "too many redirects")), 63);
}

TEST(ExitCodeFor, TheMessageNeverChangesTheNumber) {
  EXPECT_EQ(exit_code_for(Error(ErrorCode::protocol_error, "HTTP/1.1: body truncated")),
            exit_code_for(Error(ErrorCode::protocol_error, "")));
}

}  // namespace
}  // namespace sluice::cli
