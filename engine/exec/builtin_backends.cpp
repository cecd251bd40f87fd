// The backends built into the engine, added to the registry on its first use (backend_registry.h): "cpu"
// (always available; the executor's default fallback) and "vulkan" (errors saying why when there is no
// loader, driver or device).
#include "exec/backend_registry.h"
#include "exec/cpu_backend.h"
#include "exec/vulkan/vulkan_backend.h"

namespace onyx::exec {

void registerBuiltinBackends(BackendRegistry& registry) {
  registry.add("cpu", [](const BackendSettings& settings) -> Expected<std::unique_ptr<Backend>> {
    return std::unique_ptr<Backend>(std::make_unique<CpuBackend>(settings.pool, settings.kernelVariant));
  });
  registry.add("vulkan", [](const BackendSettings& settings) {
    return vulkan::makeVulkanBackend(settings.model, settings.device);
  });
}

}  // namespace onyx::exec
