#!/usr/bin/env bash
# Sanitizer builds, run by hand (with CI's main build they would not fit its 40 minutes on 2 cores):
#   build-asan  clang, -fsanitize=address,undefined (plus libFuzzer's coverage, so the fuzz targets come from
#               the same build): the engine tests and a smoke run of each fuzz target (ctest -L 'engine|fuzz');
#   build-tsan  clang, -fsanitize=thread: the threading tests (ctest -L threads), the layout service's worker
#               and the views' background inference and profiling while passes and undo edit the model.
# Prints a summary with each part's time and result; exits non-zero when a build or a test failed.
#   packaging/sanitize.sh [asan|tsan]...   (default both; ONYX_SANITIZE_JOBS=N, default 2; ONYX_TEST_DATA)
set -uo pipefail
cd "$(dirname "$0")/.."

jobs="${ONYX_SANITIZE_JOBS:-2}"
data="${ONYX_TEST_DATA:-$(cd .. && pwd)/shared}"
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(asan tsan)
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
# -O1 and line tables: readable stacks at a fraction of the compile time of -O2 -g.
common=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" -DONYX_WERROR=OFF
        "-DONYX_TEST_DATA=$data")
# Every finding is an error: UBSan stops at the first (-fno-sanitize-recover), ASan and TSan exit 66.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=66:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$PWD/packaging/tsan.supp"
export LSAN_OPTIONS="suppressions=$PWD/packaging/sanitize.supp:print_suppressions=0"
# OpenMP (libgomp) is not instrumented: one thread keeps TSan from reporting its internals.
export OMP_NUM_THREADS=1

summary=()
status=0

# part NAME BUILD_DIR "CMAKE_FLAGS" "TARGETS" CTEST_LABEL
part() {
  local name=$1 dir=$2 flags=$3 targets=$4 label=$5 start=$SECONDS result
  echo "== $name: configure and build $targets in $dir"
  # shellcheck disable=SC2086
  if ! cmake -S . -B "$dir" "${common[@]}" $flags >"$dir.configure.log" 2>&1; then
    summary+=("$name: configure FAILED (see $dir.configure.log)")
    status=1
    return
  fi
  # shellcheck disable=SC2086
  if ! nice cmake --build "$dir" -j"$jobs" --target $targets; then
    summary+=("$name: build FAILED after $((SECONDS - start)) s")
    status=1
    return
  fi
  local built=$((SECONDS - start))
  echo "== $name: ctest -L '$label'"
  ctest --test-dir "$dir" -L "$label" -j"$jobs" --timeout 1500 --output-on-failure >"$dir.ctest.log" 2>&1
  result=$?
  tail -n 30 "$dir.ctest.log"
  local line
  line=$(grep -E "tests passed|tests failed" "$dir.ctest.log" | tail -n1)
  summary+=("$name: build ${built} s, tests $((SECONDS - start - built)) s: ${line:-no tests ran} (log $dir.ctest.log)")
  [ $result -eq 0 ] || status=1
}

for p in "${parts[@]}"; do
  case "$p" in
    asan) part "ASan+UBSan" build-asan "-DONYX_SANITIZE=address,undefined -DONYX_FUZZ=ON" \
            "onyx_engine_tests fuzz_load fuzz_shapes fuzz_run" "engine|fuzz" ;;
    tsan) part "TSan" build-tsan "-DONYX_SANITIZE=thread -DONYX_FUZZ=OFF" \
            "onyx_threading_tests tst_background_work" "threads" ;;
    *) echo "unknown part '$p' (asan, tsan)" >&2; exit 2 ;;
  esac
done

echo
echo "== sanitizer summary (total $SECONDS s)"
for line in "${summary[@]}"; do echo "  $line"; done
exit $status
