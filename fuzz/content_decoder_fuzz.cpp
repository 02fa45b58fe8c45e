// Fuzz target: ContentDecoder (src/decode: gzip, deflate raw or zlib-wrapped, br,
// zstd, and chains of them) driven the way Transfer::pump_decoder drives it: encoded
// bytes arrive in pieces into a queue, each step may produce at most the room the
// staging buffer has, what was consumed leaves the queue, the decoded bytes are
// handed on, and the sweep may release scratch between pieces.
// Input: a coding byte (which Content-Encoding value, see kCodings), a limits byte
// (low nibble n: max_decoded_size 2^(n+9), 0 none; high nibble m: max_ratio 10*m,
// 0 none), a room byte (room per step: (b+1)*256 bytes), a sweep byte (bit i:
// release_scratch after piece i), then the split header of fuzz_input.hpp and the
// encoded body.
// Invariants checked: a step produces at most its room and appends exactly what it
// says, consumes at most its input, a decoded size limit holds, and when the body
// has ended the decoder either takes all its input or fails: a decoder that stalls
// with input left would leave the transfer waiting forever.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string_view>
#include <vector>

#include "core/byte_queue.hpp"
#include "decode/content_decoder.hpp"
#include "fuzz_input.hpp"

namespace {

using sluice::fuzz::check;

constexpr std::string_view kCodings[] = {
    "gzip",     "deflate",           "br",         "zstd", "x-gzip",   "gzip, br",
    "br, zstd", "deflate, gzip",     "zstd, gzip", "GZIP", "identity", "gzip, gzip",
    "compress", "br, br, br, br, br"};

// Stop a run past this: a bomb without limits would only test the fuzzer's patience.
constexpr std::uint64_t kMaxDecodedPerRun = 32u << 20;

struct Pump {
  sluice::ContentDecoder& decoder;
  sluice::ByteQueue compressed;
  sluice::ByteQueue decoded;
  std::size_t room = 0;
  std::uint64_t max_decoded = 0;
  std::uint64_t total = 0;

  // Decodes until no progress. Returns false when the exchange is over (an error, or
  // the run's decoded budget spent).
  bool run() {
    for (;;) {
      const std::size_t before_out = decoded.size();
      const std::size_t input_size = compressed.size();
      auto step = decoder.decode(compressed.readable(), decoded, room);
      if (!step) {
        check(!step.error().message().empty(), "a decode error says why");
        if (sluice::fuzz::debug_on())
          std::fprintf(stderr, "fuzz: %s\n", step.error().message().c_str());
        return false;
      }
      check(step->produced <= room, "a step produces at most its room");
      check(decoded.size() == before_out + step->produced, "a step appends what it reports");
      check(step->consumed <= input_size, "a step consumes at most its input");
      compressed.consume(step->consumed);
      total += step->produced;
      if (max_decoded != 0) check(total <= max_decoded, "the decoded size limit holds");
      decoded.clear();
      if (total > kMaxDecodedPerRun) return false;
      if (step->consumed == 0 && step->produced == 0) return true;
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const std::string_view coding = kCodings[input.byte() % std::size(kCodings)];
  const std::uint8_t limits_byte = input.byte();
  sluice::DecodeLimits limits;
  if ((limits_byte & 15) != 0)
    limits.max_decoded_size = std::uint64_t{1} << ((limits_byte & 15) + 9);
  limits.max_ratio = 10u * (limits_byte >> 4);
  const std::size_t room = (std::size_t{input.byte()} + 1) * 256;
  const std::uint8_t sweeps = input.byte();
  const std::vector<std::string_view> pieces = sluice::fuzz::split_pieces(input);

  auto created = sluice::ContentDecoder::create(coding, limits);
  if (!created || !*created) return 0;  // unknown coding, or identity
  Pump pump{**created, {}, {}, room, limits.max_decoded_size, 0};
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    pump.compressed.append(sluice::fuzz::bytes_of(pieces[i]));
    if (!pump.run()) return 0;
    if ((sweeps >> (i % 8)) & 1) pump.decoder.release_scratch();
  }
  check(pump.compressed.empty(),
        "at the end of the body the decoder takes all its input or fails (else the "
        "transfer waits forever)");
  auto finished = pump.decoder.finish();
  if (sluice::fuzz::debug_on()) {
    std::fprintf(stderr, "fuzz: decoded %llu bytes; finish: %s\n",
                 static_cast<unsigned long long>(pump.total),
                 finished ? "ok" : finished.error().message().c_str());
  }
  if (!finished) check(!finished.error().message().empty(), "a finish error says why");
  return 0;
}
