// A helper for the CLI tests (not installed): builds .onnx files from ONNX's textual syntax, so tests of bad
// input keep their models as readable text, lists a model's value_info entries, so a test can check what
// `onyx shapes --write` stored, and writes the malformed-model corpus (tests/cli/malformed/cases.txt).
//
// usage: onyx_test_model_tool from-text IN.onnxtxt OUT.onnx
//        onyx_test_model_tool value-info MODEL.onnx
//        onyx_test_model_tool corpus CASES.txt OUT_DIR
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "corpus_writer.h"
#include "onnx/onnx_io.h"

namespace {

int fail(const std::string& what, const onyx::Error& error) {
  std::fprintf(stderr, "error: %s: %s\n", what.c_str(), error.toString().c_str());
  return 1;
}

int fromText(const std::string& in, const std::string& out) {
  std::ifstream file(in);
  if (!file) return fail(in, onyx::Error{"cannot open the file", ""});
  std::stringstream text;
  text << file.rdbuf();
  auto model = onyx::parseModelText(text.str());
  if (!model) return fail(in, model.error());
  auto saved = onyx::saveModel(**model, out);
  if (!saved) return fail(out, saved.error());
  return 0;
}

// One line per value_info entry of the main graph: "name: type".
int valueInfo(const std::string& path) {
  auto model = onyx::loadModel(path);
  if (!model) return fail(path, model.error());
  for (const onyx::Value* value : (*model)->graph().valueInfo()) {
    std::printf("%s: %s\n", value->name().c_str(), value->type().toString().c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "from-text" && argc == 4) return fromText(argv[2], argv[3]);
  if (mode == "value-info" && argc == 3) return valueInfo(argv[2]);
  if (mode == "corpus" && argc == 4) return onyx::test::writeCorpus(argv[2], argv[3]);
  std::fprintf(stderr,
               "usage: %s from-text IN.onnxtxt OUT.onnx | value-info MODEL.onnx | corpus CASES.txt OUT_DIR\n",
               argv[0]);
  return 2;
}
