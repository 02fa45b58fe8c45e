// Reads the servers' env file and the served files' sums. Main thread only.

#include "soak/soak_env.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace sluice::soak {
namespace {

using Values = std::map<std::string, std::string, std::less<>>;

Error env_error(std::string message) {
  return Error(ErrorCategory::io, "soak environment: " + std::move(message) +
                                      "; start the servers with "
                                      "tests/support/servers/start.sh BUILD_DIR");
}

Result<Values> read_values(const std::string& path) {
  std::ifstream in(path);
  if (!in) return env_error("cannot read " + path);
  Values values;
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos && eq > 0) values[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return values;
}

// sha256sum's lines: "<64 hex>  <name>"; each listed file must exist with a size.
Result<std::map<std::string, ServedFile, std::less<>>> read_files(const std::string& dir) {
  const std::string sums = dir + "/sha256sums";
  std::ifstream in(sums);
  if (!in) return env_error("cannot read " + sums);
  std::map<std::string, ServedFile, std::less<>> files;
  for (std::string line; std::getline(in, line);) {
    if (line.size() <= 66) continue;
    ServedFile file{line.substr(66), 0, line.substr(0, 64)};
    std::error_code ec;
    file.size = std::filesystem::file_size(dir + "/" + file.name, ec);
    if (ec) return env_error("cannot stat " + dir + "/" + file.name + ": " + ec.message());
    files.emplace(file.name, file);
  }
  return files;
}

}  // namespace

const ServedFile& SoakEnv::file(std::string_view name) const {
  const auto found = files.find(name);
  if (found == files.end()) {
    throw std::logic_error("soak: " + std::string(name) + " is not a served file");
  }
  return found->second;
}

Result<SoakEnv> load_soak_env(const std::string& env_file) {
  auto values = read_values(env_file);
  if (!values) return values.error();
  SoakEnv env;
  const std::pair<const char*, std::string*> wanted[] = {
      {"SLUICE_NGINX_HTTP_URL", &env.nginx_http},
      {"SLUICE_NGINX_HTTPS_URL", &env.nginx_https},
      {"SLUICE_NGINX_H2_URL", &env.nginx_h2},
      {"SLUICE_NGHTTPD_URL", &env.nghttpd},
      {"SLUICE_CADDY_URL", &env.caddy},
      {"SLUICE_GTLSSERVER_URL", &env.gtlsserver},
      {"SLUICE_TEST_CA", &env.ca_file}};
  for (const auto& [key, into] : wanted) {
    const auto found = values->find(key);
    if (found == values->end()) return env_error(env_file + " has no " + key);
    *into = found->second;
  }
  env.certs_dir = std::filesystem::path(env.ca_file).parent_path().string();
  const auto files_dir = values->find("SLUICE_FILES_DIR");
  if (files_dir == values->end()) return env_error(env_file + " has no SLUICE_FILES_DIR");
  auto files = read_files(files_dir->second);
  if (!files) return files.error();
  env.files = std::move(*files);
  for (const char* name : {"empty.bin", "small.txt", "1m.bin", "large.txt", "64m.bin"}) {
    if (env.files.find(std::string_view(name)) == env.files.end()) {
      return env_error(files_dir->second + "/sha256sums does not list " + name);
    }
  }
  return env;
}

std::uint16_t port_of(std::string_view url) {
  const auto colon = url.rfind(':');
  return static_cast<std::uint16_t>(std::stoi(std::string(url.substr(colon + 1))));
}

}  // namespace sluice::soak
