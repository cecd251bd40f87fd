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
onyx_cli_test(save.threshold_needs_external --stderr-contains "--size-threshold requires --external-data" 2 --
  ${_onyx} save ${ONYX_SAMPLE_MODEL} out.onnx --size-threshold 10)
