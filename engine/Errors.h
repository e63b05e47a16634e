// Engine errors. Every user-facing failure is a C++ exception that SWIG turns
// into a Python exception: the engine never aborts the process on bad input.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace paddle {

// A config that cannot be built (unknown layer type, size mismatch, ...).
struct ConfigError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Bad input data or misuse at run time (wrong batch shape, bad label id, ...).
struct DataError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// File problems while saving or loading parameters.
struct IOError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Operation not available in this build (e.g. GPU code built without CUDA).
struct UnsupportedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {
inline void append(std::ostringstream&) {}
template <typename T, typename... Rest>
void append(std::ostringstream& os, const T& v, const Rest&... rest) {
  os << v;
  append(os, rest...);
}
}  // namespace detail

// str("layer '", name, "' expects ", n, " inputs") -> std::string
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  detail::append(os, args...);
  return os.str();
}

#define PADDLE_ENFORCE(cond, ErrorType, ...) \
  do {                                       \
    if (!(cond)) throw ErrorType(::paddle::str(__VA_ARGS__)); \
  } while (0)

}  // namespace paddle
