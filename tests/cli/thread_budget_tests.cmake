# Threads sized to the work (issue #21, opt-in with ONYX_THREAD_BUDGET=all): `onyx profile` shows the threads
# each node ran on, and `onyx run` defaults to one thread per physical core.
add_test(NAME cli.profile.thread_budget
  COMMAND bash -c "set -e; d=\"$2/models/squeezenet1_1\"; [ -f \"$d/model.onnx\" ] || { echo \"test data not found: $d\"; exit 77; }; \"$1\" run \"$d/model.onnx\" --inputs \"$d/test_data_set_0\" --threads 2 --fixed-threads --iterations 2 --profile budget_trace.json >/dev/null; \"$1\" profile budget_trace.json --by node --json > budget_profile.json; \"$1\" run \"$d/model.onnx\" --inputs \"$d/test_data_set_0\" --iterations 2 > budget_run.txt; /usr/bin/python3 \"$3\" budget_profile.json budget_run.txt"
    bash $<TARGET_FILE:onyx> ${ONYX_TEST_DATA} ${CMAKE_CURRENT_SOURCE_DIR}/check_thread_budget.py
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli.profile.thread_budget PROPERTIES LABELS cli SKIP_RETURN_CODE 77
  ENVIRONMENT "ONYX_THREAD_BUDGET=all;ONYX_SHARED_CORES=0")
# libgomp reads GOMP_SPINCOUNT before main; the engine's getenv gives it 100000 unless the environment chose.
add_test(NAME cli.openmp_spin_bounded
  COMMAND bash -c "set -e; out=$(env -u GOMP_SPINCOUNT -u OMP_WAIT_POLICY OMP_DISPLAY_ENV=verbose \"$1\" --version 2>&1); echo \"$out\" | grep \"GOMP_SPINCOUNT = '100000'\"; out=$(env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=77 OMP_DISPLAY_ENV=verbose \"$1\" --version 2>&1); echo \"$out\" | grep \"GOMP_SPINCOUNT = '77'\""
    bash $<TARGET_FILE:onyx>)
set_tests_properties(cli.openmp_spin_bounded PROPERTIES LABELS cli)
# Fewer threads while other processes keep cores busy (exec/busy_cores.h): a busy loop on one of two CPUs
# leaves `onyx run --threads 2` one free core and one shared, and its outputs still match; --fixed-threads
# keeps two threads, sharing the busy cores too.
add_test(NAME cli.run.busy_core_fewer_threads
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/busy_core_run.sh $<TARGET_FILE:onyx> ${ONYX_TEST_DATA})
# RUN_SERIAL: a test running beside it on the other CPU leaves no core free, and the run rightly takes 1
# thread instead of the shared run it checks (seen in a clean-clone CI run on 2 cores).
set_tests_properties(cli.run.busy_core_fewer_threads PROPERTIES LABELS cli SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
