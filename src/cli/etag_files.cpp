#include "cli/etag_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace sluice::cli {

std::optional<std::string> read_etag_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::string line;
  if (!file || !std::getline(file, line)) return std::nullopt;
  const std::size_t first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return std::nullopt;
  const std::size_t last = line.find_last_not_of(" \t\r");
  return line.substr(first, last - first + 1);
}

Result<void> save_etag_file(const std::string& path, std::optional<std::string_view> etag) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return Error(ErrorCategory::io,
                 "--etag-save: cannot write '" + path + "': " + std::strerror(errno));
  }
  std::string text = etag ? std::string(*etag) + "\n" : std::string();
  const bool wrote = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  const bool closed = std::fclose(file) == 0;
  if (!wrote || !closed) {
    return Error(ErrorCategory::io,
                 "--etag-save: cannot write '" + path + "': " + std::strerror(errno));
  }
  return {};
}

}  // namespace sluice::cli
