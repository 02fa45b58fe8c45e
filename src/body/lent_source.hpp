#pragma once
// The source of a LentBody (sluice/request.hpp): the caller's bytes, read in place.
// Like BytesSource it follows the release rule, but what it lets go of is the
// caller's lease, not memory of ours: `release` runs when the last hold on the lease
// ends, routed to the host's dispatch when the Client has one.
// Ownership: the lease is shared by every copy of the LentBody and by the source;
// the source is made on the sending thread, then HTTP thread only.

#include <functional>
#include <memory>
#include <mutex>

#include "body/request_body.hpp"
#include "sluice/request.hpp"

namespace sluice {

/// What a LentBody's copies share: `release`, run once by the last of them.
struct LentLease {
  explicit LentLease(std::function<void()> give_back) : release(std::move(give_back)) {}
  ~LentLease();
  LentLease(const LentLease&) = delete;
  LentLease& operator=(const LentLease&) = delete;

  std::function<void()> release;
  std::mutex mu;
  /// Where `release` runs: the host's dispatch of the Client it was last sent with
  /// (null: where the last hold ends). Guarded by mu: set on a sending thread, read
  /// by whichever thread ends the last hold.
  PostToHttpThread route;
};

struct LentBodyAccess {
  static std::shared_ptr<LentLease>& lease(LentBody& body) { return body.lease_; }
};

/// The source of `body`, which takes over its hold on the lease (a Request kept for
/// redirects must not keep the caller's bytes past the release rule); the release is
/// routed through env.run_user.
std::unique_ptr<RequestBodySource> make_lent_source(LentBody& body, const BodyEnvironment& env);

}  // namespace sluice
