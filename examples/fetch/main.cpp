// fetch: downloads one URL to standard output with sluice.
//   fetch [--cacert FILE] URL
// The status line goes to standard error; the exit status is 0 for a 2xx response
// whose body arrived whole, 1 otherwise.

#include <array>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

#include <sluice/sluice.hpp>

namespace {

int fail(const sluice::Error& error) {
  std::fprintf(stderr, "fetch: %s\n", error.describe().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  sluice::ClientOptions options;
  std::string url;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--cacert" && i + 1 < argc) {
      options.tls.ca_file = argv[++i];
    } else if (url.empty() && !arg.starts_with("-")) {
      url = arg;
    } else {
      std::fprintf(stderr, "usage: fetch [--cacert FILE] URL\n");
      return 2;
    }
  }
  if (url.empty()) {
    std::fprintf(stderr, "usage: fetch [--cacert FILE] URL\n");
    return 2;
  }

  auto client = sluice::Client::create(options);
  if (!client) {
    return fail(client.error());
  }
  sluice::Request request = sluice::Request::get(url);
  request.redirects.follow = true;
  auto response = client->fetch(std::move(request));
  if (!response) {
    return fail(response.error());
  }
  std::fprintf(stderr, "HTTP/%s %d\n", sluice::to_string(response->version), response->status);

  // read() hands over what has arrived; while this loop is busy writing, the
  // staging buffer fills to its mark and the transport stops taking bytes.
  std::array<std::byte, 64 * 1024> buffer;
  for (;;) {
    auto got = response->body.read(buffer);
    if (!got) {
      return fail(got.error());
    }
    if (*got == 0) {
      break;
    }
    if (std::fwrite(buffer.data(), 1, *got, stdout) != *got) {
      std::perror("fetch: stdout");
      return 1;
    }
  }
  return response->status >= 200 && response->status < 300 ? 0 : 1;
}
