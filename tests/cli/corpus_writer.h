#pragma once
// Writes the malformed-model corpus: one .onnx per case of a manifest (tests/cli/malformed/cases.txt), made
// straight from ONNX text through libonnx's parser and protobuf, never through Onyx's loader, so the files
// can break the rules Onyx checks (two producers of a value, an empty op type, a tensor whose data disagrees
// with its dims). The manifest's format is described at its top.
#include <string>

namespace onyx::test {

// Returns the process exit code: 0, or 1 after printing `error: CASES:LINE: what` for a case it cannot build.
int writeCorpus(const std::string& manifestPath, const std::string& outDir);

}  // namespace onyx::test
