#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace sluice::test {
namespace {

constexpr const char* kHowToStart =
    "start the servers: ./dev test or ctest (fixture servers.start)";

std::string env_dir() {
  const char* dir = std::getenv("SLUICE_TEST_ENV");
  return dir != nullptr ? dir : "";
}

}  // namespace

TestEnv::TestEnv() {
  const std::string dir = env_dir();
  if (dir.empty()) {
    problem_ = "SLUICE_TEST_ENV is not set (ctest sets it to BUILD_DIR/test-env)";
    return;
  }
  const std::string path = dir + "/env";
  std::ifstream in(path);
  if (!in) {
    problem_ = "cannot read " + path + " (servers not running)";
    return;
  }
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) {
      continue;
    }
    values_.emplace(line.substr(0, eq), line.substr(eq + 1));
  }
  if (values_.empty()) {
    problem_ = path + " has no KEY=VALUE lines";
  }
}

std::string TestEnv::get(std::string_view key) const {
  if (!problem_.empty()) {
    ADD_FAILURE() << "test environment: " << problem_ << "; " << kHowToStart;
    return "";
  }
  const auto found = values_.find(key);
  if (found == values_.end()) {
    ADD_FAILURE() << "test environment: no " << key << " in $SLUICE_TEST_ENV/env; " << kHowToStart;
    return "";
  }
  return found->second;
}

std::string TestEnv::file_path(std::string_view name) const {
  return get("SLUICE_FILES_DIR") + "/" + std::string(name);
}

std::string TestEnv::sha256_of(std::string_view name) const {
  const std::string sums_path = file_path("sha256sums");
  std::ifstream in(sums_path);
  std::string line;
  while (std::getline(in, line)) {
    // sha256sum's format: "<64 hex>  <name>" (a '*' instead of the second space in
    // binary mode).
    if (line.size() > 66 && std::string_view(line).substr(66) == name) {
      return line.substr(0, 64);
    }
  }
  ADD_FAILURE() << "test environment: " << name << " is not listed in " << sums_path << "; "
                << kHowToStart;
  return "";
}

}  // namespace sluice::test
