#pragma once
// Which singular fields of an object's protobuf message were present when it was loaded. proto2 tells
// "present and empty" from "absent" (an explicit empty domain on an opset import, an empty tensor name), and
// writers differ in which they emit; a save writes a field that holds its default value exactly as it was, so
// an unedited model saves to the bytes it was loaded from and an edited one differs only where it was edited.
// Bit n is field number n (onnx.proto's fields are numbered below 64). Objects built in memory carry no
// record and are written with the saver's own choices.
#include <cstdint>

namespace onyx {

class FieldPresence {
 public:
  FieldPresence() = default;
  // The record of a loaded message; `fieldBits` has bit n set for each present field n.
  static FieldPresence loaded(uint64_t fieldBits) { return FieldPresence(fieldBits | kRecorded); }
  bool isRecorded() const { return (bits_ & kRecorded) != 0; }
  bool has(int field) const { return field > 0 && field < 64 && ((bits_ >> field) & 1) != 0; }
  friend bool operator==(const FieldPresence&, const FieldPresence&) = default;

 private:
  static constexpr uint64_t kRecorded = 1;  // bit 0: no field is numbered 0
  explicit FieldPresence(uint64_t bits) : bits_(bits) {}
  uint64_t bits_ = 0;
};

}  // namespace onyx
