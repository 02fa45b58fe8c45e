#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "http1/h1_codec.hpp"

namespace sluice {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

Fields fields_of(const Headers& headers) {
  Fields out;
  for (const Header& field : headers) out.emplace_back(field.name, field.value);
  return out;
}

// Records every event, and the order they came in.
class Recorder : public H1ParserEvents {
 public:
  void on_response_head(ReceivedHead head) override {
    order.push_back("head");
    status = head.status;
    version = head.version;
    headers = fields_of(head.headers);
    ++heads;
  }
  void on_body(std::span<const std::byte> bytes) override {
    if (order.empty() || order.back() != "body") order.push_back("body");
    body.append(as_text(bytes));
    body_spans.push_back(bytes);
  }
  void on_trailers(Headers fields) override {
    order.push_back("trailers");
    trailers = fields_of(fields);
  }
  void on_message_complete() override {
    order.push_back("complete");
    ++completes;
  }

  std::vector<std::string> order;
  int heads = 0;
  int status = 0;
  std::optional<HttpVersion> version;
  Fields headers;
  std::string body;
  std::vector<std::span<const std::byte>> body_spans;
  std::optional<Fields> trailers;
  int completes = 0;
};

struct ParseOptions {
  bool head_request = false;
  bool finish = false;  // the server closes the connection after the bytes
  std::size_t max_header_bytes = 256 * 1024;
};

struct ParseRun {
  Recorder events;
  std::size_t consumed = 0;
  std::optional<Error> error;
  bool keep_alive = false;
};

// Feeds `wire` cut at `cuts` (ascending offsets), the way reads from a socket would
// hand it over, stopping where the parser says the response ended.
ParseRun parse_pieces(std::string_view wire, const std::vector<std::size_t>& cuts,
                      const ParseOptions& options) {
  ParseRun run;
  H1ResponseParser parser;
  parser.expect_response(options.head_request, options.max_header_bytes);
  std::vector<std::size_t> ends = cuts;
  ends.push_back(wire.size());
  std::size_t offset = 0;
  bool stopped = false;
  for (std::size_t end : ends) {
    const std::string_view piece = wire.substr(offset, end - offset);
    Result<std::size_t> fed = parser.feed(as_bytes(piece), run.events);
    if (!fed) {
      run.error = fed.error();
      return run;
    }
    run.consumed += *fed;
    if (*fed < piece.size()) {
      stopped = true;
      break;
    }
    offset = end;
  }
  if (options.finish && !stopped) {
    Result<void> finished = parser.finish(run.events);
    if (!finished) run.error = finished.error();
  }
  run.keep_alive = parser.keep_alive();
  return run;
}

std::vector<std::size_t> every_byte(std::size_t size) {
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < size; ++i) cuts.push_back(i);
  return cuts;
}

// ---- responses that parse -------------------------------------------------------

struct GoodCase {
  std::string name;
  std::string wire;
  ParseOptions options;
  int status = 200;
  Fields headers;
  std::string body;
  std::optional<Fields> trailers;
  bool keep_alive = true;
  std::size_t consumed = std::string::npos;  // npos: the whole wire
};

std::vector<GoodCase> good_cases() {
  std::vector<GoodCase> cases;
  {
    GoodCase c;
    c.name = "ContentLengthBody";
    c.wire =
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nSet-Cookie: a=1\r\n"
        "Set-Cookie: b=2\r\nX-Empty:\r\nContent-Length: 11\r\n\r\nhello world";
    c.headers = {{"Content-Type", "text/plain"},
                 {"Set-Cookie", "a=1"},
                 {"Set-Cookie", "b=2"},
                 {"X-Empty", ""},
                 {"Content-Length", "11"}};
    c.body = "hello world";
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "ValuesLoseTrailingWhitespaceAndFolds";
    c.wire = "HTTP/1.1 200 OK\r\nB:  x \t \r\nA: 1\r\n folded\r\nContent-Length: 0\r\n\r\n";
    c.headers = {{"B", "x"}, {"A", "1 folded"}, {"Content-Length", "0"}};
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "ZeroContentLength";
    c.wire = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    c.headers = {{"Content-Length", "0"}};
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "MissingReasonPhrase";
    c.wire = "HTTP/1.1 404\r\nContent-Length: 2\r\n\r\nno";
    c.status = 404;
    c.headers = {{"Content-Length", "2"}};
    c.body = "no";
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "ChunkedBodyWithExtensions";
    c.wire =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5;name=value\r\nhello\r\n6;a;b=\"quoted\"\r\n world\r\n"
        "A\r\n0123456789\r\n0\r\n\r\n";
    c.headers = {{"Transfer-Encoding", "chunked"}};
    c.body = "hello world0123456789";
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "ChunkedBodyWithTrailers";
    c.wire =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: Checksum\r\n\r\n"
        "4\r\nWiki\r\n5\r\npedia\r\n0\r\nChecksum: 7a1c\r\nX-Done: yes\r\n\r\n";
    c.headers = {{"Transfer-Encoding", "chunked"}, {"Trailer", "Checksum"}};
    c.body = "Wikipedia";
    c.trailers = Fields{{"Checksum", "7a1c"}, {"X-Done", "yes"}};
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "InformationalResponsesThenOk";
    c.wire =
        "HTTP/1.1 100 Continue\r\n\r\n"
        "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    c.headers = {{"Content-Length", "2"}};
    c.body = "ok";
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "HeadResponseHasNoBody";
    c.wire = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
    c.options.head_request = true;
    c.headers = {{"Content-Length", "1000"}};
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "HeadResponseToChunkedHasNoBody";
    c.wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    c.options.head_request = true;
    c.headers = {{"Transfer-Encoding", "chunked"}};
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "NoContent";
    c.wire = "HTTP/1.1 204 No Content\r\nServer: test\r\n\r\n";
    c.status = 204;
    c.headers = {{"Server", "test"}};
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "NotModifiedWithContentLength";
    c.wire = "HTTP/1.1 304 Not Modified\r\nContent-Length: 1234\r\nETag: \"x\"\r\n\r\n";
    c.status = 304;
    c.headers = {{"Content-Length", "1234"}, {"ETag", "\"x\""}};
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "CloseDelimitedBodyEndsAtFinish";
    c.wire = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of this, until the close";
    c.options.finish = true;
    c.headers = {{"Content-Type", "text/plain"}};
    c.body = "all of this, until the close";
    c.keep_alive = false;
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "NonChunkedTransferEncodingEndsAtFinish";
    c.wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nraw bytes";
    c.options.finish = true;
    c.headers = {{"Transfer-Encoding", "gzip"}};
    c.body = "raw bytes";
    c.keep_alive = false;
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "ConnectionCloseIsNotKeptAlive";
    c.wire = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc";
    c.headers = {{"Connection", "close"}, {"Content-Length", "3"}};
    c.body = "abc";
    c.keep_alive = false;
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "Http10IsNotKeptAlive";
    c.wire = "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabc";
    c.headers = {{"Content-Length", "3"}};
    c.body = "abc";
    c.keep_alive = false;
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "Http10WithKeepAliveIsKeptAlive";
    c.wire = "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nabc";
    c.headers = {{"Connection", "keep-alive"}, {"Content-Length", "3"}};
    c.body = "abc";
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "PipelinedResponsesStopAtTheEndOfTheFirst";
    const std::string first = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst";
    c.wire = first + "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond";
    c.headers = {{"Content-Length", "5"}};
    c.body = "first";
    c.consumed = first.size();
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "PipelinedAfterChunkedStopAtTheEndOfTheFirst";
    const std::string first =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
    c.wire = first + "HTTP/1.1 204 No Content\r\n\r\n";
    c.headers = {{"Transfer-Encoding", "chunked"}};
    c.body = "abc";
    c.consumed = first.size();
    cases.push_back(c);
  }
  // RFC 9112 2.2: a bare LF ends a head line (curl and browsers agree). Body bytes
  // are never touched: the LFs in these bodies stay as they are.
  {
    GoodCase c;
    c.name = "BareLineFeedsEndHeadLinesButNotBodyBytes";
    c.wire = "HTTP/1.1 200 OK\nA: b\nContent-Length: 5\n\na\nb\n\n";
    c.headers = {{"A", "b"}, {"Content-Length", "5"}};
    c.body = "a\nb\n\n";
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "CrlfAndBareLineFeedsMixed";
    c.wire = "HTTP/1.1 200 OK\r\nA: b\nC: d\r\n\nok\r\n";
    c.headers = {{"A", "b"}, {"C", "d"}};
    c.body = "ok\r\n";
    c.keep_alive = false;  // no length: the body ends at the close
    c.options.finish = true;
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "BareLineFeedInterimHeadThenFinal";
    c.wire = "HTTP/1.1 100 Continue\n\nHTTP/1.1 200 OK\nContent-Length: 3\n\n\n\n\n";
    c.headers = {{"Content-Length", "3"}};
    c.body = "\n\n\n";
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "BareLineFeedBodilessResponseLeavesTheNextOneUnread";
    const std::string first = "HTTP/1.1 204 No Content\nA: b\n\n";
    c.wire = first + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    c.status = 204;
    c.headers = {{"A", "b"}};
    c.consumed = first.size();
    cases.push_back(c);
  }
  // The same for chunked framing: chunk-size lines, the line end after chunk data
  // and trailer lines. Chunk data is never touched: the LFs inside it stay.
  {
    GoodCase c;
    c.name = "BareLineFeedsInChunkFramingButNotChunkData";
    c.wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\na\nb\n\n3;x=1\n\r\n\n\n0\n\n";
    c.headers = {{"Transfer-Encoding", "chunked"}};
    c.body = "a\nb\n\r\n\n";
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "BareLineFeedsThroughoutAChunkedResponseWithTrailers";
    c.wire =
        "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n5\nhello\r\n6\n world\n0\nChecksum: "
        "7a1c\r\nX-Done: yes\n\n";
    c.headers = {{"Transfer-Encoding", "chunked"}};
    c.body = "hello world";
    c.trailers = Fields{{"Checksum", "7a1c"}, {"X-Done", "yes"}};
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "BareLineFeedChunkedResponseLeavesTheNextOneUnread";
    const std::string first = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\n0\n\n";
    c.wire = first + "HTTP/1.1 204 No Content\r\n\r\n";
    c.headers = {{"Transfer-Encoding", "chunked"}};
    c.body = "abc";
    c.consumed = first.size();
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "BareLineFeedHeadAtTheLimitCountsTheBytesSent";
    c.wire = "HTTP/1.1 200 OK\nContent-Length: 4\n\nbody";
    c.options.max_header_bytes = c.wire.size() - 4;
    c.headers = {{"Content-Length", "4"}};
    c.body = "body";
    cases.push_back(c);
  }
  {
    GoodCase c;
    c.name = "HeadExactlyAtTheLimit";
    c.wire = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbody";
    c.options.max_header_bytes = c.wire.size() - 4;
    c.headers = {{"Content-Length", "4"}};
    c.body = "body";
    cases.push_back(c);
  }
  return cases;
}

// Readable names in gtest's output instead of a byte dump.
void PrintTo(const GoodCase& c, std::ostream* os) { *os << c.name; }

class H1ResponseParserGood : public testing::TestWithParam<GoodCase> {
 protected:
  void expect_parsed(const ParseRun& run) const {
    const GoodCase& c = GetParam();
    ASSERT_FALSE(run.error) << run.error->describe();
    EXPECT_EQ(run.events.heads, 1);
    EXPECT_EQ(run.events.status, c.status);
    EXPECT_EQ(run.events.headers, c.headers);
    EXPECT_EQ(run.events.body, c.body);
    EXPECT_EQ(run.events.trailers, c.trailers);
    EXPECT_EQ(run.events.completes, 1);
    std::vector<std::string> order{"head"};
    if (!c.body.empty()) order.push_back("body");
    if (c.trailers) order.push_back("trailers");
    order.push_back("complete");
    EXPECT_EQ(run.events.order, order);
    EXPECT_EQ(run.keep_alive, c.keep_alive);
    EXPECT_EQ(run.consumed, c.consumed == std::string::npos ? c.wire.size() : c.consumed);
  }
};

TEST_P(H1ResponseParserGood, ParsesFromOneBuffer) {
  expect_parsed(parse_pieces(GetParam().wire, {}, GetParam().options));
}

TEST_P(H1ResponseParserGood, ParsesWhenSplitAtAnyByte) {
  const GoodCase& c = GetParam();
  for (std::size_t i = 0; i <= c.wire.size(); ++i) {
    SCOPED_TRACE("split at " + std::to_string(i));
    expect_parsed(parse_pieces(c.wire, {i}, c.options));
    if (HasFatalFailure() || HasNonfatalFailure()) return;
  }
}

TEST_P(H1ResponseParserGood, ParsesOneByteAtATime) {
  const GoodCase& c = GetParam();
  expect_parsed(parse_pieces(c.wire, every_byte(c.wire.size()), c.options));
}

INSTANTIATE_TEST_SUITE_P(Responses, H1ResponseParserGood, testing::ValuesIn(good_cases()),
                         [](const testing::TestParamInfo<GoodCase>& param) {
                           return param.param.name;
                         });

// ---- responses that fail --------------------------------------------------------

struct BadCase {
  std::string name;
  std::string wire;
  ParseOptions options;
  ErrorCategory category = ErrorCategory::protocol;
  std::string message;  // exact, or a prefix when `prefix_only`
  bool prefix_only = false;
};

std::vector<BadCase> bad_cases() {
  const std::string cl_head = "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n";
  const std::string chunked_head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  std::vector<BadCase> cases;
  cases.push_back(
      {"HeaderBlockOverTheLimit",
       "HTTP/1.1 200 OK\r\nX-Filler: " + std::string(100, 'f') + "\r\nContent-Length: 0\r\n\r\n",
       {false, false, 64},
       ErrorCategory::too_large,
       "HTTP/1.1: response header block exceeds the limit of 64 bytes"});
  cases.push_back({"InformationalHeadsCountTowardTheLimit",
                   "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                   "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
                   {false, false, 64},
                   ErrorCategory::too_large,
                   "HTTP/1.1: response header block exceeds the limit of 64 bytes"});
  cases.push_back({"HeadOneByteOverTheLimit",
                   "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
                   {false, false, 37},
                   ErrorCategory::too_large,
                   "HTTP/1.1: response header block exceeds the limit of 37 bytes"});
  cases.push_back({"TrailersOverTheLimit",
                   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: " +
                       std::string(80, 't') + "\r\n\r\n",
                   {false, false, 64},
                   ErrorCategory::too_large,
                   "HTTP/1.1: response trailers exceed the limit of 64 bytes"});
  cases.push_back({"ClosedBeforeAnyByte",
                   "",
                   {false, true},
                   ErrorCategory::protocol,
                   "HTTP/1.1: empty reply from server (the connection closed before any byte "
                   "of the response)"});
  cases.push_back({"ClosedInsideTheHead",
                   "HTTP/1.1 200 OK\r\nContent-Le",
                   {false, true},
                   ErrorCategory::protocol,
                   "HTTP/1.1: connection closed before the response headers were complete"});
  cases.push_back({"ClosedAfterAnInformationalResponse",
                   "HTTP/1.1 100 Continue\r\n\r\n",
                   {false, true},
                   ErrorCategory::protocol,
                   "HTTP/1.1: connection closed before the response headers were complete"});
  cases.push_back({"TruncatedContentLengthBody",
                   cl_head + std::string(1000, 'b'),
                   {false, true},
                   ErrorCategory::protocol,
                   "HTTP/1.1: connection closed after 1000 of 5000 body bytes"});
  cases.push_back({"ClosedRightAfterTheHead",
                   cl_head,
                   {false, true},
                   ErrorCategory::protocol,
                   "HTTP/1.1: connection closed after 0 of 5000 body bytes"});
  cases.push_back({"TruncatedChunkedBody",
                   chunked_head + "5\r\nhello\r\n4\r\nab",
                   {false, true},
                   ErrorCategory::protocol,
                   "HTTP/1.1: connection closed inside a chunked body after 7 bytes"});
  cases.push_back({"ChunkedBodyClosedBeforeTheTrailersEnd",
                   chunked_head + "3\r\nabc\r\n0\r\nX-Partial: 1\r\n",
                   {false, true},
                   ErrorCategory::protocol,
                   "HTTP/1.1: connection closed inside a chunked body after 3 bytes"});
  cases.push_back({"InvalidChunkSize",
                   chunked_head + "5\r\nhello\r\nzz\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid chunk size from server (",
                   true});
  cases.push_back({"ChunkDataNotFollowedByCrlf",
                   chunked_head + "3\r\nabcXY0\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid chunked body from server (chunk data not followed by CRLF)"});
  cases.push_back({"ChunkDataFollowedByCrOnly",
                   chunked_head + "3\r\nabc\rX0\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid chunked body from server (chunk data not followed by CRLF)"});
  cases.push_back({"ChunkDataFollowedByLineFeedThenCr",
                   chunked_head + "3\nabc\n\r0\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid chunk size from server (",
                   true});
  cases.push_back({"ChunkDataFollowedByCrCr",
                   chunked_head + "3\r\nabc\r\r\n0\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid chunked body from server (chunk data not followed by CRLF)"});
  cases.push_back({"ChunkSizeLineWithoutLineFeed",
                   chunked_head + "3\rXabc\r\n0\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid ",
                   true});
  cases.push_back({"ChunkSizeOverflow",
                   chunked_head + "fffffffffffffffff\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid chunk size from server (",
                   true});
  cases.push_back({"InvalidStatusCode",
                   "HTTP/1.1 2x0 OK\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid status line from server (",
                   true});
  cases.push_back({"NotHttpAtAll",
                   "SSH-2.0-OpenSSH_9.2\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid status line from server (",
                   true});
  cases.push_back({"InvalidVersion",
                   "HTTP/x.1 200 OK\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid status line from server (",
                   true});
  cases.push_back({"SwitchingProtocolsIsRefused",
                   "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: server switched protocols (101) although no upgrade was requested"});
  cases.push_back({"InvalidHeaderName",
                   "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid header from server (",
                   true});
  cases.push_back({"SpaceBeforeColon",
                   "HTTP/1.1 200 OK\r\nName : x\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid header from server (",
                   true});
  cases.push_back({"BareCarriageReturnAfterStatusLine",
                   "HTTP/1.1 200 OK\rA: b\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid ",
                   true});
  cases.push_back({"ControlByteInHeaderValue",
                   "HTTP/1.1 200 OK\r\nA: b\x01\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid header from server (",
                   true});
  cases.push_back({"InvalidTrailerName",
                   chunked_head + "0\r\nBad Trailer: 1\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid trailer from server (",
                   true});
  cases.push_back({"StatusBelowOneHundred",
                   "HTTP/1.1 000 OK\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid status line from server (status 0)"});
  cases.push_back({"NotAnHttp1Version",
                   "HTTP/2.0 200 OK\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid status line from server (HTTP version 2.0)"});
  cases.push_back({"ContentLengthOverflow",
                   "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid Content-Length from server (",
                   true});
  cases.push_back({"ContentLengthNotANumber",
                   "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid Content-Length from server (",
                   true});
  cases.push_back({"ContentLengthTwiceWithDifferentValues",
                   "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: conflicting Content-Length from server (",
                   true});
  // Stricter than RFC 9110 (which allows a repeated identical value): llhttp refuses
  // any second Content-Length, and so do we.
  cases.push_back({"ContentLengthTwiceWithTheSameValue",
                   "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: conflicting Content-Length from server (",
                   true});
  cases.push_back({"ContentLengthWithChunked",
                   "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                   "5\r\nhello\r\n0\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: conflicting Content-Length from server (",
                   true});
  // The bare-LF leniency opens no smuggling: framing stays as strict over bare LFs.
  cases.push_back({"SpaceBeforeColonOverBareLineFeeds",
                   "HTTP/1.1 200 OK\nName : x\n\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: invalid header from server (",
                   true});
  cases.push_back({"ContentLengthWithChunkedOverBareLineFeeds",
                   "HTTP/1.1 200 OK\nContent-Length: 5\nTransfer-Encoding: chunked\n\n"
                   "5\r\nhello\r\n0\r\n\r\n",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: conflicting Content-Length from server (",
                   true});
  cases.push_back({"ContentLengthTwiceOverBareLineFeeds",
                   "HTTP/1.1 200 OK\nContent-Length: 5\nContent-Length: 6\n\nhello!",
                   {},
                   ErrorCategory::protocol,
                   "HTTP/1.1: conflicting Content-Length from server (",
                   true});
  return cases;
}

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class H1ResponseParserBad : public testing::TestWithParam<BadCase> {
 protected:
  void expect_failed(const ParseRun& run) const {
    const BadCase& c = GetParam();
    ASSERT_TRUE(run.error) << "parsed without error";
    EXPECT_EQ(run.error->category(), c.category) << run.error->describe();
    if (c.prefix_only) {
      EXPECT_EQ(run.error->message().rfind(c.message, 0), 0u) << run.error->message();
    } else {
      EXPECT_EQ(run.error->message(), c.message);
    }
    EXPECT_EQ(run.events.completes, 0);
    EXPECT_FALSE(run.keep_alive);
  }
};

TEST_P(H1ResponseParserBad, FailsFromOneBuffer) {
  expect_failed(parse_pieces(GetParam().wire, {}, GetParam().options));
}

TEST_P(H1ResponseParserBad, FailsTheSameWayWhenSplitAtAnyByte) {
  const BadCase& c = GetParam();
  const ParseRun whole = parse_pieces(c.wire, {}, c.options);
  ASSERT_TRUE(whole.error);
  for (std::size_t i = 0; i <= c.wire.size(); ++i) {
    SCOPED_TRACE("split at " + std::to_string(i));
    const ParseRun run = parse_pieces(c.wire, {i}, c.options);
    expect_failed(run);
    if (HasFatalFailure() || HasNonfatalFailure()) return;
    EXPECT_EQ(run.error->message(), whole.error->message());
  }
}

TEST_P(H1ResponseParserBad, FailsOneByteAtATime) {
  const BadCase& c = GetParam();
  expect_failed(parse_pieces(c.wire, every_byte(c.wire.size()), c.options));
}

INSTANTIATE_TEST_SUITE_P(Responses, H1ResponseParserBad, testing::ValuesIn(bad_cases()),
                         [](const testing::TestParamInfo<BadCase>& param) {
                           return param.param.name;
                         });

// ---- the parser across calls ----------------------------------------------------

// A control byte in a redirect's Location fails the response; the message names the
// field, whichever way the bytes were cut.
TEST(H1ResponseParser, AControlByteInAValueNamesItsField) {
  for (const std::string& bad : {std::string("\x0b", 1), std::string("\0", 1)}) {
    const std::string wire = "HTTP/1.1 302 Found\r\nLocation: /next" + bad + "X\r\n\r\n";
    for (const auto& cuts : {std::vector<std::size_t>{}, every_byte(wire.size())}) {
      const ParseRun run = parse_pieces(wire, cuts, {});
      ASSERT_TRUE(run.error.has_value());
      EXPECT_NE(run.error->message().find("in the value of 'Location'"), std::string::npos)
          << run.error->message();
    }
  }
  // A bad byte in a name is not blamed on a value.
  const ParseRun name_run = parse_pieces("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", {}, {});
  ASSERT_TRUE(name_run.error.has_value());
  EXPECT_EQ(name_run.error->message().find("in the value of"), std::string::npos)
      << name_run.error->message();
}

TEST(H1ResponseParser, BodySpansPointIntoTheInput) {
  const std::string wire = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789";
  H1ResponseParser parser;
  Recorder events;
  ASSERT_TRUE(parser.feed(as_bytes(wire), events));
  ASSERT_EQ(events.body_spans.size(), 1u);
  EXPECT_EQ(reinterpret_cast<const char*>(events.body_spans[0].data()),
            wire.data() + wire.find("0123456789"));
  EXPECT_EQ(events.body_spans[0].size(), 10u);
}

// What may be received straight into the reader's memory: only body bytes, never past
// a Content-Length body's end, never chunk framing or a head.
TEST(H1ResponseParser, PlainBodyLeftCountsOnlyBytesThatMustBeBody) {
  H1ResponseParser parser;
  Recorder events;
  EXPECT_EQ(parser.plain_body_left(), 0u) << "before the head";
  ASSERT_TRUE(parser.feed(as_bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n"), events));
  EXPECT_EQ(parser.plain_body_left(), 0u) << "inside the head";
  ASSERT_TRUE(parser.feed(as_bytes("\r\n0123"), events));
  EXPECT_EQ(parser.plain_body_left(), 6u);
  ASSERT_TRUE(parser.feed(as_bytes("456789"), events));
  EXPECT_EQ(parser.plain_body_left(), 0u) << "the body is complete";

  H1ResponseParser close_delimited;
  Recorder until_close;
  ASSERT_TRUE(close_delimited.feed(as_bytes("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nab"),
                                   until_close));
  EXPECT_EQ(close_delimited.plain_body_left(), UINT64_MAX);

  H1ResponseParser chunked;
  Recorder chunks;
  ASSERT_TRUE(chunked.feed(as_bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"),
                           chunks));
  EXPECT_EQ(chunked.plain_body_left(), 0u) << "chunk framing is not body";

  H1ResponseParser head;
  Recorder head_events;
  head.expect_response(true, 1024);
  ASSERT_TRUE(head.feed(as_bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"), head_events));
  EXPECT_EQ(head.plain_body_left(), 0u) << "a HEAD response has no body";
}

TEST(H1ResponseParser, ExpectResponseReadiesTheParserForTheNextResponse) {
  const std::string first = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst";
  const std::string second =
      "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nsecond\r\n0\r\n\r\n";
  const std::string wire = first + second;
  H1ResponseParser parser;
  Recorder one;
  Result<std::size_t> fed = parser.feed(as_bytes(wire), one);
  ASSERT_TRUE(fed);
  ASSERT_EQ(*fed, first.size());
  EXPECT_TRUE(parser.keep_alive());

  parser.expect_response(false, 1024);
  EXPECT_FALSE(parser.head_done());
  EXPECT_FALSE(parser.keep_alive());
  Recorder two;
  fed = parser.feed(as_bytes(wire).subspan(first.size()), two);
  ASSERT_TRUE(fed);
  EXPECT_EQ(*fed, second.size());
  EXPECT_EQ(two.status, 201);
  EXPECT_EQ(two.body, "second");
  EXPECT_EQ(two.completes, 1);
  EXPECT_TRUE(parser.keep_alive());
}

TEST(H1ResponseParser, FeedAfterCompletionTakesNothing) {
  const std::string wire = "HTTP/1.1 204 No Content\r\n\r\n";
  H1ResponseParser parser;
  Recorder events;
  ASSERT_TRUE(parser.feed(as_bytes(wire), events));
  Result<std::size_t> again = parser.feed(as_bytes("HTTP/1.1 200 OK\r\n"), events);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, 0u);
  EXPECT_EQ(events.heads, 1);
  EXPECT_TRUE(parser.finish(events));
  EXPECT_EQ(events.completes, 1);
}

TEST(H1ResponseParser, HeadDoneAndKeepAliveFollowTheResponse) {
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n";
  H1ResponseParser parser;
  Recorder events;
  EXPECT_FALSE(parser.head_done());
  ASSERT_TRUE(parser.feed(as_bytes(head.substr(0, 10)), events));
  EXPECT_FALSE(parser.head_done());
  ASSERT_TRUE(parser.feed(as_bytes(head.substr(10)), events));
  EXPECT_TRUE(parser.head_done());
  EXPECT_FALSE(parser.keep_alive()) << "not before the body is complete";
  ASSERT_TRUE(parser.feed(as_bytes("abc"), events));
  EXPECT_TRUE(parser.keep_alive());
}

TEST(H1ResponseParser, AnHttp10StatusLineIsReportedAsSuch) {
  ParseRun old = parse_pieces("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi", {}, {});
  ASSERT_FALSE(old.error) << old.error->message();
  EXPECT_EQ(old.events.version, HttpVersion::http1_0);
  EXPECT_FALSE(old.keep_alive);  // 1.0 closes unless it says keep-alive
  ParseRun current = parse_pieces("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", {}, {});
  EXPECT_FALSE(current.events.version.has_value());
}

TEST(H1ResponseParser, ErrorIsStickyUntilTheNextResponse) {
  H1ResponseParser parser;
  Recorder events;
  Result<std::size_t> fed = parser.feed(as_bytes("HTTP/1.1 2x0 OK\r\n\r\n"), events);
  ASSERT_FALSE(fed);
  const std::string message = fed.error().message();
  fed = parser.feed(as_bytes("HTTP/1.1 200 OK\r\n\r\n"), events);
  ASSERT_FALSE(fed);
  EXPECT_EQ(fed.error().message(), message);
  Result<void> finished = parser.finish(events);
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().message(), message);

  parser.expect_response(false, 1024);
  fed = parser.feed(as_bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), events);
  ASSERT_TRUE(fed);
  EXPECT_EQ(events.completes, 1);
}

TEST(H1ResponseParser, HeadRequestFlagAppliesOnlyToItsResponse) {
  const std::string wire = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  H1ResponseParser parser;
  parser.expect_response(true, 1024);
  Recorder head;
  Result<std::size_t> fed = parser.feed(as_bytes(wire), head);
  ASSERT_TRUE(fed);
  EXPECT_EQ(*fed, wire.size() - 2) << "the body of a HEAD response is not its to take";
  EXPECT_EQ(head.body, "");

  parser.expect_response(false, 1024);
  Recorder get;
  fed = parser.feed(as_bytes(wire), get);
  ASSERT_TRUE(fed);
  EXPECT_EQ(*fed, wire.size());
  EXPECT_EQ(get.body, "ok");
}

TEST(H1ResponseParser, LimitAppliesAcrossFeedsNotPerFeed) {
  const std::string head = "HTTP/1.1 200 OK\r\nX-A: " + std::string(50, 'a') + "\r\n";
  H1ResponseParser parser(1024);
  parser.expect_response(false, 100);
  Recorder events;
  ASSERT_TRUE(parser.feed(as_bytes(head.substr(0, 40)), events));
  ASSERT_TRUE(parser.feed(as_bytes(head.substr(40)), events));
  Result<std::size_t> fed = parser.feed(as_bytes("X-B: " + std::string(40, 'b') + "\r\n"), events);
  ASSERT_FALSE(fed);
  EXPECT_EQ(fed.error().category(), ErrorCategory::too_large);
  EXPECT_EQ(events.heads, 0);
}

TEST(H1ResponseParser, LargeBodyAfterASmallLimitIsNotCounted) {
  const std::string body(100000, 'x');
  const std::string wire = "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + body;
  H1ResponseParser parser;
  parser.expect_response(false, 64);
  Recorder events;
  Result<std::size_t> fed = parser.feed(as_bytes(wire), events);
  ASSERT_TRUE(fed) << fed.error().describe();
  EXPECT_EQ(*fed, wire.size());
  EXPECT_EQ(events.body.size(), body.size());
}

class ThrowingEvents : public Recorder {
 public:
  void on_response_head(ReceivedHead) override { throw std::runtime_error("sink exploded"); }
};

TEST(H1ResponseParser, ExceptionFromAnEventBecomesAnError) {
  H1ResponseParser parser;
  ThrowingEvents events;
  Result<std::size_t> fed =
      parser.feed(as_bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), events);
  ASSERT_FALSE(fed);
  EXPECT_NE(fed.error().message().find("sink exploded"), std::string::npos);
}

// A body that ends early is an error with its own code, never a short success.
TEST(H1ResponseParser, ABodyCutShortIsTruncated) {
  H1ResponseParser parser;
  Recorder events;
  ASSERT_TRUE(parser.feed(as_bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nfour"), events));
  Result<void> finished = parser.finish(events);
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().code(), ErrorCode::body_truncated) << finished.error().message();
  EXPECT_EQ(finished.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(events.completes, 0);
}

// A close before any byte is curl's "empty reply" (52), not a truncated body: there
// was no body to cut. Part of a head is a broken response (protocol_error).
TEST(H1ResponseParser, ACloseBeforeAnyByteIsAnEmptyReply) {
  H1ResponseParser parser;
  Recorder events;
  Result<void> finished = parser.finish(events);
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().code(), ErrorCode::empty_reply) << finished.error().message();
}

TEST(H1ResponseParser, ACloseInsideTheHeadIsAProtocolError) {
  H1ResponseParser parser;
  Recorder events;
  ASSERT_TRUE(parser.feed(as_bytes("HTTP/1.1 200 OK\r\nContent-Le"), events));
  Result<void> finished = parser.finish(events);
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().code(), ErrorCode::protocol_error) << finished.error().message();
}

}  // namespace
}  // namespace sluice
