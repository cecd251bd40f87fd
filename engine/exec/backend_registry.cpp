// Backends by name (backend_registry.h).
#include "exec/backend_registry.h"

namespace onyx::exec {

BackendRegistry& BackendRegistry::builtin() {
  static BackendRegistry* registry = [] {
    auto* r = new BackendRegistry();  // never destroyed: backends may be created while the program exits
    registerBuiltinBackends(*r);
    return r;
  }();
  return *registry;
}

void BackendRegistry::add(const std::string& name, BackendFactory factory) {
  std::lock_guard lock(mutex_);
  for (auto& [known, existing] : factories_) {
    if (known == name) {
      existing = std::move(factory);
      return;
    }
  }
  factories_.emplace_back(name, std::move(factory));
}

bool BackendRegistry::has(const std::string& name) const {
  std::lock_guard lock(mutex_);
  for (const auto& [known, factory] : factories_)
    if (known == name) return true;
  return false;
}

std::vector<std::string> BackendRegistry::names() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [known, factory] : factories_) out.push_back(known);
  return out;
}

Expected<std::unique_ptr<Backend>> BackendRegistry::create(const std::string& name,
                                                           const BackendSettings& settings) const {
  BackendFactory factory;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [known, f] : factories_)
      if (known == name) factory = f;
  }
  if (!factory) {
    std::string known;
    for (const std::string& n : names()) known += (known.empty() ? "" : ", ") + n;
    return makeError("backend '" + name + "' is not available in this build; choose one of: " + known,
                     "executor");
  }
  return factory(settings);
}

}  // namespace onyx::exec
