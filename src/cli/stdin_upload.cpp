#include "cli/stdin_upload.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace sluice::cli {
namespace {

constexpr std::size_t kPiece = 64 * 1024;

void pump(const std::shared_ptr<BodyWriter>& writer) {
  std::vector<std::byte> piece(kPiece);
  for (;;) {
    const ssize_t got = ::read(STDIN_FILENO, piece.data(), piece.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      writer->abort(std::string("-T -: cannot read stdin: ") + std::strerror(errno));
      return;
    }
    if (got == 0) {
      writer->close();
      return;
    }
    if (!writer->write(std::span(piece.data(), static_cast<std::size_t>(got)))) return;
  }
}

}  // namespace

StreamBody start_stdin_upload() {
  std::shared_ptr<BodyWriter> writer = BodyWriter::create();
  std::thread([writer] { pump(writer); }).detach();
  return StreamBody{writer, std::nullopt};
}

}  // namespace sluice::cli
