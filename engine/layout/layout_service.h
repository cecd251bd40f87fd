#pragma once
// Lays out levels off the caller's thread. One worker thread owns every Graphviz call (Graphviz is not
// thread-safe); callers build the LevelView on their own thread (it reads the IR), submit it under a
// cache key and get a future, an optional completion callback and progress per phase. Queued or running
// jobs can be cancelled; results are cached by key so re-opening a level does not run dot again. A job
// given the layout of the same level before an edit keeps its positions (stable_layout.h) and runs dot
// only when too much is new.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>

#include "layout/layout_result.h"
#include "layout/stable_layout.h"
#include "util/expected.h"

namespace onyx::layout {

using LayoutOutcome = Expected<std::shared_ptr<const LevelLayout>>;

// Identifies a laid-out level: which document and graph, which scope, what is expanded, and the document's
// change counter, so an edit makes old entries unreachable instead of wrong.
struct LayoutKey {
  // The caller's id of the open model, unique for the process's lifetime: graph pointers are reused once
  // a model is closed, so two documents must never share an id.
  uint64_t document = 0;
  const Graph* graph = nullptr;
  std::string scopePath;
  std::set<std::string> expandedScopes;
  bool expandAll = false;
  size_t collapseThreshold = 0;
  uint64_t revision = 0;  // bumped by the caller on every change event of the model

  static LayoutKey of(const LevelRequest& request, uint64_t document, uint64_t revision);
  std::string toString() const;
};

struct LayoutOptions {
  DotPolicy policy;
  size_t cacheCapacity = 64;  // levels kept, least recently used dropped first
  StablePolicy stable;        // when a layout around an earlier one gives way to dot
};

struct LayoutStats {
  uint64_t dotRuns = 0;  // gvLayout calls made
  uint64_t cacheHits = 0;
  uint64_t cancelled = 0;
  uint64_t failed = 0;
  uint64_t keptLayouts = 0;  // jobs answered around an earlier layout, without dot
};

using ProgressCallback = std::function<void(LayoutPhase phase, double fraction)>;
using CompletionCallback = std::function<void(const LayoutOutcome& outcome)>;

class LayoutJob {
 public:
  // Settles the job as cancelled at once; a job already in dot finishes there and its result is dropped.
  void cancel();
  bool isCancelled() const { return cancelled_.load(); }
  LayoutPhase phase() const { return phase_.load(); }
  bool fromCache() const { return fromCache_; }
  const std::shared_future<LayoutOutcome>& future() const { return future_; }
  // Blocks until settled.
  const LayoutOutcome& wait() const { return future_.get(); }

 private:
  friend class LayoutService;
  void settle(LayoutOutcome outcome, LayoutPhase phase);
  void report(LayoutPhase phase, double fraction);

  std::string key_;
  std::shared_ptr<const LevelView> level_;
  std::shared_ptr<const LevelLayout> around_;
  ProgressCallback progress_;
  CompletionCallback completion_;
  std::mutex settleMutex_;
  bool settled_ = false;
  std::promise<LayoutOutcome> promise_;
  std::shared_future<LayoutOutcome> future_;
  std::atomic<bool> cancelled_{false};
  std::atomic<LayoutPhase> phase_{LayoutPhase::Queued};
  bool fromCache_ = false;
};

class LayoutService {
 public:
  explicit LayoutService(LayoutOptions options = {});
  ~LayoutService();  // cancels what is queued and waits for a running dot call to end
  LayoutService(const LayoutService&) = delete;
  LayoutService& operator=(const LayoutService&) = delete;

  // A cache hit settles the job before submit returns and calls `completion` on this thread; otherwise
  // progress and completion are called on the worker thread (a GUI forwards them to its own). `around`:
  // the same level as laid out before an edit, whose positions the new layout keeps where it can.
  std::shared_ptr<LayoutJob> submit(const LayoutKey& key, std::shared_ptr<const LevelView> level,
                                    ProgressCallback progress = {}, CompletionCallback completion = {},
                                    std::shared_ptr<const LevelLayout> around = nullptr);
  // Submits and waits: for the command line and tests.
  LayoutOutcome layoutNow(const LayoutKey& key, std::shared_ptr<const LevelView> level,
                          std::shared_ptr<const LevelLayout> around = nullptr);

  std::shared_ptr<const LevelLayout> cached(const LayoutKey& key);
  void clearCache();
  LayoutStats stats() const;
  const LayoutOptions& options() const { return options_; }

 private:
  void workerLoop();
  void run(LayoutJob& job);
  void remember(const std::string& key, std::shared_ptr<const LevelLayout> layout);
  // The cached layout for the key (checked against the level when given); mutex_ held.
  std::shared_ptr<const LevelLayout> lookup(const std::string& key, const LevelView* level);

  LayoutOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<LayoutJob>> queue_;
  bool stopping_ = false;
  LayoutStats stats_;
  // LRU cache: most recent at the front.
  std::list<std::pair<std::string, std::shared_ptr<const LevelLayout>>> cache_;
  std::unordered_map<std::string, decltype(cache_)::iterator> cacheIndex_;
  std::thread worker_;  // last: started once everything above exists
};

}  // namespace onyx::layout
