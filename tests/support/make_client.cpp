#include "support/make_client.hpp"

#include <stdexcept>
#include <utility>

namespace sluice::test {

Client make_client(ClientOptions options) {
  auto client = Client::create(std::move(options));
  if (!client) throw std::runtime_error("Client::create failed: " + client.error().describe());
  return std::move(client).value();
}

}  // namespace sluice::test
