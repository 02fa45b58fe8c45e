// AWS Signature Version 4 against AWS's published figures: the SigV4 test suite
// (credentials AKIDEXAMPLE, 2015-08-30 12:36:00 UTC, us-east-1, service "service"),
// the IAM ListUsers example and its derived key, and the S3 GET object example
// (examplebucket, Range: bytes=0-9). No expected value here was computed by sluice.
#include "auth/aws_sigv4.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "auth/aws_sigv4_canonical.hpp"

namespace sluice {
namespace {

using namespace std::chrono;

constexpr std::string_view kSuiteKey = "AKIDEXAMPLE";
constexpr std::string_view kSuiteSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
constexpr std::string_view kSuiteCredential =
    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ";

system_clock::time_point suite_time() {
  return sys_days{year{2015} / 8 / 30} + hours{12} + minutes{36};
}

AwsSigV4Scope scope_of(std::string_view text, std::string_view host = "example.amazonaws.com") {
  auto scope = AwsSigV4Scope::parse(text, host);
  EXPECT_TRUE(scope.ok()) << (scope.ok() ? "" : scope.error().message());
  return scope.ok() ? *scope : AwsSigV4Scope{};
}

// The Authorization a suite case signs to: its method, path, query, own fields and body.
std::string suite_authorization(std::string_view method, std::string_view path,
                                std::string_view query = "", const Headers& headers = {},
                                std::string_view body = "") {
  AwsSigV4Request request{method, "example.amazonaws.com", path, query, &headers, body};
  auto signed_hop = aws_sigv4_sign(scope_of("aws:amz:us-east-1:service"), kSuiteKey, kSuiteSecret,
                                   request, suite_time());
  EXPECT_TRUE(signed_hop.ok());
  if (!signed_hop.ok()) return {};
  EXPECT_EQ(signed_hop->headers.get("X-Amz-Date"), "20150830T123600Z");
  return std::string(signed_hop->headers.get("Authorization").value_or(""));
}

std::string suite_expected(std::string_view signed_headers, std::string_view signature) {
  return std::string(kSuiteCredential) + "SignedHeaders=" + std::string(signed_headers) +
         ", Signature=" + std::string(signature);
}

TEST(AwsSigV4Suite, GetVanilla) {
  EXPECT_EQ(suite_authorization("GET", "/"),
            suite_expected("host;x-amz-date",
                           "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"));
}

TEST(AwsSigV4Suite, GetVanillaQueryOrderKeyCaseSortsTheQuery) {
  EXPECT_EQ(suite_authorization("GET", "/", "Param2=value2&Param1=value1"),
            suite_expected("host;x-amz-date",
                           "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"));
}

TEST(AwsSigV4Suite, GetVanillaQueryUnreservedKeepsUnreservedCharacters) {
  constexpr std::string_view kUnreserved =
      "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const std::string query = std::string(kUnreserved) + "=" + std::string(kUnreserved);
  EXPECT_EQ(suite_authorization("GET", "/", query),
            suite_expected("host;x-amz-date",
                           "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"));
}

TEST(AwsSigV4Suite, GetVanillaUtf8QueryEncodesEachByte) {
  EXPECT_EQ(suite_authorization("GET", "/", "\xE1\x88\xB4=bar"),
            suite_expected("host;x-amz-date",
                           "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"));
}

TEST(AwsSigV4Suite, GetUtf8EncodesThePath) {
  EXPECT_EQ(suite_authorization("GET", "/\xE1\x88\xB4"),
            suite_expected("host;x-amz-date",
                           "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"));
}

TEST(AwsSigV4Suite, GetSpaceNormalized) {
  EXPECT_EQ(suite_authorization("GET", "/example space/"),
            suite_expected("host;x-amz-date",
                           "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"));
}

TEST(AwsSigV4Suite, GetRelativeRelativeNormalizedIsTheRoot) {
  EXPECT_EQ(suite_authorization("GET", "/example1/example2/../.."),
            suite_expected("host;x-amz-date",
                           "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"));
}

TEST(AwsSigV4Suite, GetSlashesNormalizedDropsEmptySegments) {
  EXPECT_EQ(suite_authorization("GET", "//example//"),
            suite_expected("host;x-amz-date",
                           "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"));
}

TEST(AwsSigV4Suite, GetHeaderValueTrimSignsTrimmedValues) {
  const Headers headers{{"My-Header1", " value1"}, {"My-Header2", "\"a   b   c\""}};
  EXPECT_EQ(suite_authorization("GET", "/", "", headers),
            suite_expected("host;my-header1;my-header2;x-amz-date",
                           "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"));
}

TEST(AwsSigV4Suite, GetVanillaWithSessionTokenSignsTheToken) {
  const Headers headers{
      {"X-Amz-Security-Token", "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"}};
  EXPECT_EQ(suite_authorization("GET", "/", "", headers),
            suite_expected("host;x-amz-date;x-amz-security-token",
                           "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8"));
}

TEST(AwsSigV4Suite, PostXWwwFormUrlencodedHashesTheBody) {
  const Headers headers{{"Content-Type", "application/x-www-form-urlencoded"}};
  EXPECT_EQ(suite_authorization("POST", "/", "", headers, "Param1=value1"),
            suite_expected("content-type;host;x-amz-date",
                           "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"));
}

TEST(AwsSigV4, DerivesTheDocumentedSigningKey) {
  const AwsSigV4Scope scope = scope_of("aws:amz:us-east-1:iam");
  std::string hex;
  for (const char c : aws_sigv4_signing_key(scope, kSuiteSecret, "20150830")) {
    static constexpr char kHex[] = "0123456789abcdef";
    hex += kHex[static_cast<unsigned char>(c) >> 4];
    hex += kHex[static_cast<unsigned char>(c) & 0x0f];
  }
  EXPECT_EQ(hex, "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9");
}

TEST(AwsSigV4, SignsTheIamListUsersExample) {
  const Headers headers{{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}};
  AwsSigV4Request request{
      "GET", "iam.amazonaws.com", "/", "Action=ListUsers&Version=2010-05-08", &headers, ""};
  auto signed_hop = aws_sigv4_sign(scope_of("aws:amz:us-east-1:iam"), kSuiteKey, kSuiteSecret,
                                   request, suite_time());
  ASSERT_TRUE(signed_hop.ok());
  EXPECT_EQ(signed_hop->string_to_sign,
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/iam/aws4_request\n"
            "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
  EXPECT_EQ(signed_hop->headers.get("Authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
            "SignedHeaders=content-type;host;x-amz-date, "
            "Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
}

// Amazon S3's example of a signed GET Object (its "header-based auth" page).
TEST(AwsSigV4, SignsTheS3GetObjectExampleWithItsPayloadHeader) {
  const Headers headers{{"Range", "bytes=0-9"}};
  AwsSigV4Request request{"GET", "examplebucket.s3.amazonaws.com", "/test.txt", "", &headers, ""};
  const system_clock::time_point when = sys_days{year{2013} / 5 / 24};
  auto signed_hop = aws_sigv4_sign(scope_of("aws:amz:us-east-1:s3"), "AKIAIOSFODNN7EXAMPLE",
                                   "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", request, when);
  ASSERT_TRUE(signed_hop.ok());
  EXPECT_EQ(signed_hop->headers.get("x-amz-content-sha256"),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(signed_hop->headers.get("X-Amz-Date"), "20130524T000000Z");
  EXPECT_EQ(signed_hop->headers.get("Authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(AwsSigV4, AStreamedBodyIsAnUnsignedPayload) {
  const Headers headers;
  AwsSigV4Request request{"PUT", "bucket.example", "/key", "", &headers, std::nullopt};
  auto signed_hop =
      aws_sigv4_sign(scope_of("aws:amz:us-east-1:s3"), "AK", "SECRET", request, suite_time());
  ASSERT_TRUE(signed_hop.ok());
  EXPECT_EQ(signed_hop->headers.get("x-amz-content-sha256"), "UNSIGNED-PAYLOAD");
  EXPECT_TRUE(signed_hop->canonical_request.ends_with("\nUNSIGNED-PAYLOAD"));
  // Another service gets no payload header (it is S3's), but the same hash.
  auto other =
      aws_sigv4_sign(scope_of("aws:amz:us-east-1:service"), "AK", "SECRET", request, suite_time());
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->headers.contains("x-amz-content-sha256"));
  EXPECT_TRUE(other->canonical_request.ends_with("\nUNSIGNED-PAYLOAD"));
}

TEST(AwsSigV4, TheRequestsOwnDateAndPayloadHashAreUsed) {
  const Headers headers{{"X-Amz-Date", "20150830T123600Z"},
                        {"x-amz-content-sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER"}};
  AwsSigV4Request request{"GET", "example.amazonaws.com", "/", "", &headers, std::nullopt};
  auto signed_hop = aws_sigv4_sign(scope_of("aws:amz:us-east-1:s3"), "AK", "SECRET", request,
                                   system_clock::time_point{});
  ASSERT_TRUE(signed_hop.ok());
  EXPECT_FALSE(signed_hop->headers.contains("X-Amz-Date"));  // the request's own goes
  EXPECT_FALSE(signed_hop->headers.contains("x-amz-content-sha256"));
  EXPECT_NE(signed_hop->string_to_sign.find("\n20150830T123600Z\n"), std::string::npos);
  EXPECT_TRUE(signed_hop->canonical_request.ends_with("\nSTREAMING-UNSIGNED-PAYLOAD-TRAILER"));

  const Headers bad_date{{"X-Amz-Date", "yesterday"}};
  request.headers = &bad_date;
  auto refused = aws_sigv4_sign(scope_of("aws:amz:us-east-1:s3"), "AK", "SECRET", request,
                                system_clock::time_point{});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("x-amz-date"), std::string::npos);
}

TEST(AwsSigV4, HopByHopFieldsAreNotSigned) {
  const Headers headers{{"Connection", "close"}, {"Expect", "100-continue"}, {"X-Meta", "1"}};
  AwsSigV4Request request{"GET", "h.example", "/", "", &headers, ""};
  auto signed_hop = aws_sigv4_sign(scope_of("aws:amz:r:s"), "AK", "SECRET", request, suite_time());
  ASSERT_TRUE(signed_hop.ok());
  EXPECT_NE(signed_hop->headers.get("Authorization")->find("SignedHeaders=host;x-amz-date;x-meta,"),
            std::string::npos);
}

TEST(AwsSigV4Scope, ServiceAndRegionComeFromTheHostAsCurlTakesThem) {
  const AwsSigV4Scope scope = scope_of("aws", "s3.us-west-2.amazonaws.com");
  EXPECT_EQ(scope.provider1, "aws");
  EXPECT_EQ(scope.provider2, "aws");  // curl: provider2 defaults to provider1
  EXPECT_EQ(scope.service, "s3");
  EXPECT_EQ(scope.region, "us-west-2");
  const AwsSigV4Scope regional = scope_of("AWS:AMZ:eu-west-1", "s3.us-west-2.amazonaws.com");
  EXPECT_EQ(regional.provider1, "aws");
  EXPECT_EQ(regional.provider2, "amz");
  EXPECT_EQ(regional.region, "eu-west-1");
  EXPECT_EQ(regional.service, "s3");
  const AwsSigV4Scope given = scope_of("goog:goog:auto:storage", "localhost");
  EXPECT_EQ(given.service, "storage");
}

TEST(AwsSigV4Scope, BadScopesNameTheOptionAndThePart) {
  for (const auto& [text, host, words] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"", "a.b.c", "first provider"},
           {"aws::r:s", "a.b.c", "second provider"},
           {"aws:amz::s", "a.b.c", "region"},
           {"aws:amz:r:", "a.b.c", "service"},
           {"aws:a\r\nb", "a.b.c", "second provider"},
           {"aws:amz:r/x:s", "a.b.c", "region"},
           {"aws", "localhost", "host name 'localhost'"},
           {"aws:amz", "example.com", "no region"}}) {
    auto scope = AwsSigV4Scope::parse(text, host);
    ASSERT_FALSE(scope.ok()) << text;
    EXPECT_EQ(scope.error().category(), ErrorCategory::usage);
    EXPECT_NE(scope.error().message().find("--aws-sigv4"), std::string::npos);
    EXPECT_NE(scope.error().message().find(words), std::string::npos) << scope.error().message();
  }
}

TEST(AwsSigV4Canonical, S3PathsAreEncodedOnceAndKeepTheirSegments) {
  EXPECT_EQ(aws_canonical_uri("/a%20b/./c%7e/%2F", true), "/a%20b/./c~/%2F");
  EXPECT_EQ(aws_canonical_uri("", true), "/");
  // Other services: the path as sent is encoded again, dot segments gone.
  EXPECT_EQ(aws_canonical_uri("/a%20b/./c/../d", false), "/a%2520b/d");
}

TEST(AwsSigV4Canonical, QueriesAreNormalisedAndSorted) {
  EXPECT_EQ(aws_canonical_query("b=2&a=%7e&a=1&c&&d=x%2fy+z"), "a=1&a=~&b=2&c=&d=x%2Fy%2Bz");
  EXPECT_EQ(aws_canonical_query(""), "");
}

}  // namespace
}  // namespace sluice
