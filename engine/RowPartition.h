// A sparse_update table of which this process holds only rows [begin(), end()); the others
// live in other processes (trainer/ShardedTables.cpp implements it). The table reads what it
// lacks through this interface: lookups read the rows fetched for the current batch, and
// saving writes the rows the other processes hold.
#pragma once
#include <cstddef>
#include <iosfwd>

#include "engine/math/Buffer.h"

namespace paddle {

class Parameter;

class RowPartition {
 public:
  virtual ~RowPartition() = default;
  virtual size_t begin() const = 0;
  virtual size_t end() const = 0;
  // The rows fetched for this batch, for lookups: values (row k at k * cols) and, per row id,
  // its k (-1: not fetched, read in place).
  virtual const float* fetchedValues() const = 0;
  virtual const int* fetchedSlots() const = 0;
  // Whether this process writes a saved table's file (the others' rows stream into it).
  virtual bool writesFiles() const = 0;
  // Saves `buffer` (the value or an optimizer state buffer of p) whole: writes its rows into
  // *out after the header where writesFiles(), else sends this process's rows (out is null).
  virtual void writeRows(const Parameter& p, const Matrix& buffer, std::ostream* out) = 0;
};

}  // namespace paddle
