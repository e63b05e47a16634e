// Opening a file the engine reads (parameters, optimizer state, merged models).
// Only regular files: a FIFO or a device in a model directory is an error, not a hang.
#pragma once
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "engine/Errors.h"

namespace paddle {

// `what` names the kind of file in errors ("parameter file", "merged model").
inline std::ifstream openInputFile(const std::string& path, const std::string& what) {
  struct stat st;
  PADDLE_ENFORCE(::stat(path.c_str(), &st) == 0, IOError, "cannot open ", what, " '", path, "'");
  PADDLE_ENFORCE(S_ISREG(st.st_mode), IOError, what, " '", path, "' is not a regular file");
  std::ifstream in(path, std::ios::binary);
  PADDLE_ENFORCE(in.good(), IOError, "cannot open ", what, " '", path, "'");
  return in;
}

inline bool isRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace paddle
