#pragma once
// The Vulkan compute backend. Nodes whose op has a Vulkan kernel (engine/ops/<family>/*_vulkan.cpp) and
// whose float inputs are float32 (or float16 on devices with 16-bit storage) run on the device; the
// scheduler gives the rest to the CPU with transfers. Work is recorded into one command buffer over many
// nodes and submitted only when the host needs a result.
#include <memory>
#include <string>

#include "exec/backend.h"
#include "ir/model.h"

namespace onyx::exec::vulkan {

// Opens the device (`device`: index or part of a name; "" the best one, or ONYX_VULKAN_DEVICE). An error
// that says why when there is no loader, no driver or no device.
Expected<std::unique_ptr<Backend>> makeVulkanBackend(const Model& model, const std::string& device = {});

// The device `makeVulkanBackend` would use, or why there is none: for "--backend auto" and reports.
Expected<std::string> probeDevice(const std::string& device = {});

}  // namespace onyx::exec::vulkan
