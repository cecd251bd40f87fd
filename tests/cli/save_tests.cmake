# `onyx save`: exact output, byte-identical round trips through external data, and errors.
set(_onyx $<TARGET_FILE:onyx>)
onyx_cli_test(save.keep --stdout ${_expected}/save-keep.txt 0 --
  sh -c "\"$1\" save \"$2\" save-keep.onnx && cmp save-keep.onnx \"$2\"" sh ${_onyx} ${ONYX_SAMPLE_MODEL})
onyx_cli_test(save.external_then_inline --stdout ${_expected}/save-external-inline.txt 0 --
  sh -c "\"$1\" save \"$2\" save-ext.onnx --external-data save-ext.bin --size-threshold 64 && \"$1\" save save-ext.onnx save-back.onnx --inline && cmp save-back.onnx \"$2\""
  sh ${_onyx} ${ONYX_SAMPLE_MODEL})
onyx_cli_test(save.missing_input --stderr ${_expected}/save-missing.stderr 1 -- ${_onyx} save missing.onnx out.onnx)
onyx_cli_test(save.no_output_folder --stderr ${_expected}/save-no-folder.stderr 1 --
  ${_onyx} save ${ONYX_SAMPLE_MODEL} no/such/folder/out.onnx)
onyx_cli_test(save.external_name_with_folder --stderr ${_expected}/save-external-name.stderr 1 --
  ${_onyx} save ${ONYX_SAMPLE_MODEL} out.onnx --external-data ../weights.bin)
onyx_cli_test(save.inline_and_external --stderr-contains "--external-data excludes --inline" 2 --
  ${_onyx} save ${ONYX_SAMPLE_MODEL} out.onnx --inline --external-data w.bin)
foreach(_bad "-1" "1.5" "64k")
  string(MAKE_C_IDENTIFIER "${_bad}" _id)
  onyx_cli_test(save.bad_threshold.${_id} --stderr-contains "--size-threshold: must be a whole number of bytes >= 0, got '${_bad}'" 2 --
    ${_onyx} save ${ONYX_SAMPLE_MODEL} out.onnx --external-data w.bin --size-threshold ${_bad})
endforeach()
onyx_cli_test(save.threshold_needs_external --stderr-contains "--size-threshold requires --external-data" 2 --
  ${_onyx} save ${ONYX_SAMPLE_MODEL} out.onnx --size-threshold 10)
# Every way the external data file could land on the input model or on the output itself is refused before
# anything is written: the input's bytes are the same afterwards, and no half-written output is left.
foreach(_case "in-victim.onnx out.onnx --external-data in-victim.onnx"
              "in-victim.onnx out-self.onnx --external-data out-self.onnx"
              "in-victim.onnx in-victim.onnx --external-data in-victim.onnx"
              "in-victim.onnx out-empty.onnx --external-data ''")
  string(MAKE_C_IDENTIFIER "${_case}" _id)
  add_test(NAME cli.save.refused.${_id}
    COMMAND sh -c "rm -f out*.onnx && cp \"$2\" in-victim.onnx && before=$(sha256sum < in-victim.onnx) && \
\"$1\" save ${_case} 2> err.txt; rc=$?; cat err.txt; [ $rc = 1 ] && grep -q '^error: ' err.txt && \
[ \"$(sha256sum < in-victim.onnx)\" = \"$before\" ] && ! ls out*.onnx 2>/dev/null"
    sh ${_onyx} ${ONYX_SAMPLE_MODEL}
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(cli.save.refused.${_id} PROPERTIES LABELS cli RUN_SERIAL TRUE)
endforeach()
