# `onyx diff`: exact output for two small models with known edits, a model against itself, and errors.
set(_diff_models)
foreach(_name diff_before diff_after)
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/${_name}.onnx)
  add_custom_command(OUTPUT ${_out}
    COMMAND onyx_test_model_tool from-text ${CMAKE_CURRENT_SOURCE_DIR}/models/${_name}.onnxtxt ${_out}
    DEPENDS onyx_test_model_tool ${CMAKE_CURRENT_SOURCE_DIR}/models/${_name}.onnxtxt VERBATIM)
  list(APPEND _diff_models ${_out})
endforeach()
add_custom_target(onyx_cli_diff_models ALL DEPENDS ${_diff_models})

onyx_cli_test(diff.edits --stdout ${_expected}/diff-edits.txt 0 -- $<TARGET_FILE:onyx> diff diff_before.onnx diff_after.onnx)
onyx_cli_test(diff.edits.json --stdout ${_expected}/diff-edits.json 0 --
  $<TARGET_FILE:onyx> diff --json diff_before.onnx diff_after.onnx)
onyx_cli_test(diff.reverse --stdout ${_expected}/diff-reverse.txt 0 -- $<TARGET_FILE:onyx> diff diff_after.onnx diff_before.onnx)
onyx_cli_test(diff.same --stdout ${_expected}/diff-same.txt 0 -- $<TARGET_FILE:onyx> diff ${ONYX_SAMPLE_MODEL} ${ONYX_SAMPLE_MODEL})
onyx_cli_test(diff.missing_second --stderr ${_expected}/diff-missing.stderr 1 --
  $<TARGET_FILE:onyx> diff diff_before.onnx missing.onnx)
onyx_cli_test(diff.one_argument --stderr-contains "B is required" 2 -- $<TARGET_FILE:onyx> diff diff_before.onnx)
