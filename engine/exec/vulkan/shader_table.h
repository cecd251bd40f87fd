#pragma once
// The compute shaders embedded at build time: SPIR-V words by shader name (the .comp file's stem, such as
// "binary_vulkan"), in a float32-storage and a float16-storage build.
#include <cstdint>
#include <span>
#include <string_view>

namespace onyx::exec::vulkan {

// Empty when no shader has that name.
std::span<const uint32_t> shaderCode(std::string_view name, bool float16);

}  // namespace onyx::exec::vulkan
