// How an executor runs a schedule: shared vocabulary of the executor (exec), the selector that
// chooses it (coll) and the model that predicts it (model), so none of those includes another
// for it.
#pragma once

namespace relay::schedule {

/// blocking: one operation at a time per rank, each waited for before the next step.
/// nonblocking: receives pre-posted, forwarding while later segments arrive, with a bounded
/// number of requests in flight (tan2014's pipeline).
enum class Policy { blocking, nonblocking };

}  // namespace relay::schedule
