#pragma once
// Backends by name. The executor creates each backend the caller names (ExecutorOptions::backends and the
// fallback) through the registry, so it knows no backend itself. The built-in backends (CPU, Vulkan) are
// added by registerBuiltinBackends (exec/builtin_backends.cpp) when the registry is first used: the engine is
// a static library, where a file's static initialisers run only if something else pulls that file in.
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exec/backend.h"
#include "exec/thread_pool.h"
#include "ir/model.h"

namespace onyx::exec {

// What a backend may need to start: the model (a device backend uploads its weights), the host's thread
// pool, the device the user chose ("" the best one), and a kernel variant to pin ("" the best per node).
struct BackendSettings {
  const Model& model;
  ThreadPool& pool;
  std::string device;
  std::string kernelVariant;
};

// Creates the backend, or an error saying why it cannot run here (no driver, no device).
using BackendFactory = std::function<Expected<std::unique_ptr<Backend>>(const BackendSettings&)>;

class BackendRegistry {
 public:
  // The registry holding the built-in backends.
  static BackendRegistry& builtin();

  // Adds or replaces the factory for `name`.
  void add(const std::string& name, BackendFactory factory);
  bool has(const std::string& name) const;
  std::vector<std::string> names() const;  // in the order added
  // An unknown name is an error listing the registered ones.
  Expected<std::unique_ptr<Backend>> create(const std::string& name, const BackendSettings& settings) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, BackendFactory>> factories_;
};

// Defined in exec/builtin_backends.cpp.
void registerBuiltinBackends(BackendRegistry& registry);

}  // namespace onyx::exec
