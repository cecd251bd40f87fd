#pragma once
// A user error as a value (`std::expected`-style; GCC 12 has no <expected>). Programmer errors are asserts.
#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace onyx {

struct Error {
  std::string message;  // what went wrong and, where possible, what to do
  std::string where;    // node, value or byte offset the error is about; may be empty

  std::string toString() const { return where.empty() ? message : message + " (" + where + ")"; }
};

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}  // NOLINT: implicit, like std::expected
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { assert(ok()); return std::get<0>(state_); }
  const T& value() const& { assert(ok()); return std::get<0>(state_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { assert(!ok()); return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { assert(!ok_); return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Error makeError(std::string message, std::string where = {}) {
  return Error{std::move(message), std::move(where)};
}

}  // namespace onyx
