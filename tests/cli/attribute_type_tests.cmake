# Issue #25: an attribute whose type is not the one its operator's ONNX schema declares (Softmax's `axis` as
# INTS or FLOAT, LeakyRelu's `alpha` as INT...) is an error when the model loads, naming the node, the
# attribute, the type found and the type expected, instead of the default being used without a word.
set(_attribute_type_models softmax_axis_ints softmax_axis_float leaky_relu_alpha_int transpose_perm_string
  if_branch_cast_to_float)
set(_attribute_type_model_files)
foreach(_name ${_attribute_type_models})
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/attribute_types_${_name}.onnx)
  add_custom_command(OUTPUT ${_out}
    COMMAND onyx_test_model_tool from-text ${CMAKE_CURRENT_SOURCE_DIR}/models/attribute_types/${_name}.onnxtxt
      ${_out}
    DEPENDS onyx_test_model_tool ${CMAKE_CURRENT_SOURCE_DIR}/models/attribute_types/${_name}.onnxtxt VERBATIM)
  list(APPEND _attribute_type_model_files ${_out})
endforeach()
add_custom_target(onyx_cli_attribute_type_models ALL DEPENDS ${_attribute_type_model_files})

# `onyx info` on model NAME exits 1 with exactly TEXT as its error line.
function(onyx_attribute_type_test name text)
  set(_stderr ${CMAKE_CURRENT_BINARY_DIR}/attribute_types_${name}.stderr)
  file(WRITE ${_stderr} "error: attribute_types_${name}.onnx: ${text}\n")
  onyx_cli_test(attribute_types.${name} --stderr ${_stderr} 1 --
    $<TARGET_FILE:onyx> info attribute_types_${name}.onnx)
endfunction()

onyx_attribute_type_test(softmax_axis_ints "Softmax (#2): attribute 'axis' is INTS, the operator expects INT")
onyx_attribute_type_test(softmax_axis_float "Softmax (#1): attribute 'axis' is FLOAT, the operator expects INT")
onyx_attribute_type_test(leaky_relu_alpha_int
  "LeakyRelu (#1): attribute 'alpha' is INT, the operator expects FLOAT")
onyx_attribute_type_test(transpose_perm_string
  "Transpose (#1): attribute 'perm' is STRING, the operator expects INTS")
onyx_attribute_type_test(if_branch_cast_to_float "Cast (#1): attribute 'to' is FLOAT, the operator expects INT")
