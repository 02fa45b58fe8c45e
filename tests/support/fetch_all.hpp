#pragma once
// fetch_all: one request through a Client with its whole body read, for tests that
// check what arrived rather than how it streamed.
// Threads: the caller's (Client::fetch blocks it until the head arrives).

#include <cstddef>
#include <string>
#include <utility>

#include "sluice/sluice.hpp"

namespace sluice::test {

struct Fetched {
  int status = 0;
  std::string body;
  HttpVersion version = HttpVersion::http1_1;
  int redirects = 0;
};

/// The response with its body, or the error of either (`limit`: the most body read).
inline Result<Fetched> fetch_all(Client& client, Request request, std::size_t limit = 128u << 20) {
  auto response = client.fetch(std::move(request));
  if (!response) return std::move(response).error();
  auto body = response->body.read_all(limit);
  if (!body) return std::move(body).error();
  return Fetched{response->status, std::move(*body), response->version, response->redirects};
}

}  // namespace sluice::test
