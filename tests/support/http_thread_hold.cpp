#include "support/http_thread_hold.hpp"

#include "client/client_access.hpp"
#include "client/client_core.hpp"

namespace sluice::test {

HttpThreadHold::HttpThreadHold(Client& client) {
  ClientAccess::core(client).poster()->post(
      [gates = gates_, released = gates_->release.get_future().share()] {
        gates->entered.set_value();
        released.wait();
      });
}

bool HttpThreadHold::held(std::chrono::milliseconds deadline) {
  return entered_.wait_for(deadline) == std::future_status::ready;
}

void HttpThreadHold::release() {
  if (released_) return;
  released_ = true;
  gates_->release.set_value();
}

}  // namespace sluice::test
