# Issue #25, C1 C2 C4: malformed models that ask for more memory than any machine has get the resource policy's
# error (engine/util/limits.h), exit 1 and one `error:` line, never bad_alloc or a heap overrun. Sizes are
# 2^40 elements and up, over the default limit on any machine; tests that print the limit set it. The texts
# stop before any ';' (a CMake list separator).
set(_limit_models huge_dim negative_input_dim overflow_dims bind_batch maxpool_huge reshape_shape_len
  expand_shape_len constant_of_shape_len expand_huge onehot_depth constant_of_shape_huge tile_huge pad_huge
  resize_negative resize_scales_huge range_huge conv_pads_huge run_arena
  sum_broadcast_huge)
set(_limit_model_files)
foreach(_name ${_limit_models})
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/limits_${_name}.onnx)
  add_custom_command(OUTPUT ${_out}
    COMMAND onyx_test_model_tool from-text ${CMAKE_CURRENT_SOURCE_DIR}/models/limits/${_name}.onnxtxt ${_out}
    DEPENDS onyx_test_model_tool ${CMAKE_CURRENT_SOURCE_DIR}/models/limits/${_name}.onnxtxt VERBATIM)
  list(APPEND _limit_model_files ${_out})
endforeach()
add_custom_target(onyx_cli_limits_models ALL DEPENDS ${_limit_model_files})

# `onyx run` on model NAME (the model's file is limits_NAME.onnx) exits 1 with TEXT in its one error line.
function(onyx_limit_run_test name text)
  onyx_cli_test(limits.run.${name} --stderr-contains "${text}" 1 --
    $<TARGET_FILE:onyx> run --random ${ARGN} limits_${name}.onnx)
endfunction()

# C1: declared input dims and --bind values are checked before random inputs are allocated.
onyx_limit_run_test(huge_dim
  "random input 'x' (float32[1099511627776]) asks for a tensor of [1099511627776]: 1099511627776 elements, 4398046511104 bytes, over the limit of")
onyx_limit_run_test(negative_input_dim
  "random input 'x' (float32[-3, 4]) has a negative dimension -3 in [-3, 4]")
onyx_limit_run_test(overflow_dims
  "random input 'x' (float32[4294967296, 4294967296, 16]) asks for a tensor of [4294967296, 4294967296, 16], whose element count does not fit in 64 bits")
onyx_limit_run_test(bind_batch
  "random input 'x' (float32[batch, 1000]) asks for a tensor of [1000000000, 1000]: 1000000000000 elements, 4000000000000 bytes, over the limit of"
  --bind batch=1000000000)
onyx_limit_run_test(maxpool_huge
  "random input 'x' (float32[1, 1, 4611686018427387904, 1]) asks for a tensor of [1, 1, 4611686018427387904, 1]: 4611686018427387904 elements, more than 2^63 bytes, over the limit of")
onyx_limit_run_test(reshape_shape_len
  "random input 'shape' (int64[9223372036854775807]) asks for a tensor of [9223372036854775807]: 9223372036854775807 elements, more than 2^63 bytes")
# The environment overrides the default, and the error says so.
onyx_cli_test(limits.run.env_override
  --stderr-contains "asks for a tensor of [100, 1000]: 100000 elements, 400000 bytes, over the limit of 64 bytes per tensor"
  1 -- env ONYX_MAX_TENSOR_BYTES=64 $<TARGET_FILE:onyx> run --random --bind batch=100 limits_bind_batch.onnx)
# optimize --verify reports the limit for each step instead of aborting (the step is saved unverified).
onyx_cli_test(limits.optimize_verify.huge_dim --stdout ${_expected}/optimize-verify-huge-dim.txt 0 --
  env ONYX_MAX_TENSOR_BYTES=1000000 $<TARGET_FILE:onyx> optimize --verify --passes identity-elimination
  limits_huge_dim.onnx -o verified_huge_dim.onnx)

# C2: a shape-carrying input declared with a huge length would give a shape of that rank.
foreach(_case "reshape_shape_len;9223372036854775807" "expand_shape_len;1099511627776"
    "constant_of_shape_len;1099511627776")
  list(GET _case 0 _name)
  list(GET _case 1 _length)
  onyx_cli_test(limits.shapes.${_name}
    --stdout ${_expected}/shapes-limits-${_name}.txt
    --stderr-contains "shape input 'shape' (graph input) is declared with ${_length} elements, over the limit of 4096 for a shape (it gives the output's rank)"
    1 -- $<TARGET_FILE:onyx> shapes limits_${_name}.onnx)
  # optimize and render stop with the same error line as shapes (they used to abort, then to carry on
  # without the shape and exit 0).
  set(_line "shape input 'shape' (graph input) is declared with ${_length} elements, over the limit of 4096 for a shape (it gives the output's rank)")
  onyx_cli_test(limits.render.${_name} --stderr-contains "${_line}" 1 --
    $<TARGET_FILE:onyx> render limits_${_name}.onnx -o limits_${_name}.svg)
  onyx_cli_test(limits.optimize.${_name} --stderr-contains "${_line}" 1 --
    $<TARGET_FILE:onyx> optimize limits_${_name}.onnx -o limits_${_name}_out.onnx)
endforeach()

# C4: outputs sized from data are checked in KernelContext::allocateOutput, naming the node.
onyx_limit_run_test(expand_huge
  "Expand output 0 (float32) asks for a tensor of [1099511627776, 1]: 1099511627776 elements, 4398046511104 bytes, over the limit of")
onyx_limit_run_test(onehot_depth
  "OneHot output 0 (float32) asks for a tensor of [2, 1099511627776]: 2199023255552 elements, 8796093022208 bytes, over the limit of")
onyx_limit_run_test(constant_of_shape_huge
  "ConstantOfShape output 0 (float32) asks for a tensor of [1099511627776, 1024]: 1125899906842624 elements, 4503599627370496 bytes, over the limit of")
onyx_limit_run_test(tile_huge
  "Tile output 0 (float32) asks for a tensor of [2199023255552, 2]: 4398046511104 elements, 17592186044416 bytes, over the limit of")
onyx_limit_run_test(pad_huge
  "Pad output 0 (float32) asks for a tensor of [1099511627778, 2]: 2199023255556 elements, 8796093022224 bytes, over the limit of")
onyx_limit_run_test(resize_negative
  "Resize output (from sizes or scales) has a negative dimension -8 in [1, 1, -8, 8]")
onyx_limit_run_test(resize_scales_huge
  "Resize output (from sizes or scales) asks for a tensor of [1, 1, 3999999983616, 4]: 15999999934464 elements")
onyx_limit_run_test(range_huge
  "Range output 0 (float32) asks for a tensor of [9999999827968]: 9999999827968 elements, 39999999311872 bytes, over the limit of")
onyx_limit_run_test(conv_pads_huge
  "Conv output 0 (float32) asks for a tensor of [1, 1, 1099511627780, 1099511627780], whose element count does not fit in 64 bits")

# The run's arena is held to ONYX_MAX_RUN_BYTES (default: physical memory), naming the node at the peak.
onyx_cli_test(limits.run.arena_over_run_limit
  --stderr-contains "the run needs an arena of 400000 bytes, over the limit of 1000"
  1 -- env ONYX_MAX_RUN_BYTES=1000 $<TARGET_FILE:onyx> run --random --bind batch=100 limits_run_arena.onnx)

# Variadic Sum's running broadcast is a temporary, checked before it is allocated.
onyx_limit_run_test(sum_broadcast_huge
  "Sum broadcast result asks for a tensor of [1048576, 1048576]: 1099511627776 elements, 4398046511104 bytes, over the limit of")
