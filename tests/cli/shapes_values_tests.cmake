# `onyx shapes` with values: --inputs (a test case's tensors as graph-input values) and sizes computed in
# floating point (a detection transform's resize and pad sizes).
set(_value_models)
foreach(_name detection_transform reshape_by_input)
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/${_name}.onnx)
  add_custom_command(OUTPUT ${_out}
    COMMAND onyx_test_model_tool from-text ${CMAKE_CURRENT_SOURCE_DIR}/models/${_name}.onnxtxt ${_out}
    DEPENDS onyx_test_model_tool ${CMAKE_CURRENT_SOURCE_DIR}/models/${_name}.onnxtxt VERBATIM)
  list(APPEND _value_models ${_out})
endforeach()
add_custom_target(onyx_cli_shapes_value_models ALL DEPENDS ${_value_models})

# Float size arithmetic: every value resolves once H and W are bound (float32 rounding: 640 * (800/480) is
# 1066.67, floored; padded up to a multiple of 32), and reads as floor/min/max of fractions while unbound.
onyx_cli_test(shapes.detection_transform.bind --stdout-lines "^(resized|padded|values:) "
  ${_expected}/shapes-detection-transform-bind.txt 0 --
  $<TARGET_FILE:onyx> shapes --bind H=480,W=640 detection_transform.onnx)
onyx_cli_test(shapes.detection_transform --stdout-lines "^(resized|padded|values:) "
  ${_expected}/shapes-detection-transform.txt 0 -- $<TARGET_FILE:onyx> shapes detection_transform.onnx)

# --inputs: a Reshape target given as a graph input resolves from the file's value; a broken file is named
# with the graph input it was for.
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/broken_inputs)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/broken_inputs/input_0.pb "This text is not a TensorProto.\n")
onyx_cli_test(shapes.inputs.broken_file --stderr-contains "graph input 0 'x' from input_0.pb" 1 --
  $<TARGET_FILE:onyx> shapes --inputs broken_inputs reshape_by_input.onnx)
onyx_cli_test(shapes.inputs.reshape_target --needs-shared onnx-backend-data/node/test_reshape_negative_dim/test_data_set_0
  --stdout-lines "^(reshaped|values:) " ${_expected}/shapes-inputs-reshape-negative-dim.txt 0 --
  $<TARGET_FILE:onyx> shapes --inputs @SHARED@/onnx-backend-data/node/test_reshape_negative_dim/test_data_set_0
  @SHARED@/onnx-backend-data/node/test_reshape_negative_dim/model.onnx)

# The node suite from the CLI, as the engine's acceptance test infers it (1,802 cases; 2 jobs).
add_test(NAME cli.shapes.inputs.node_suite
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/shapes_node_suite.sh $<TARGET_FILE:onyx> 2)
set_tests_properties(cli.shapes.inputs.node_suite PROPERTIES
  LABELS cli
  SKIP_RETURN_CODE 77
  ENVIRONMENT "ONYX_DEFAULT_TEST_DATA=${ONYX_TEST_DATA}")
