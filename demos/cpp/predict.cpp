// Predicts the digits test set with a merged model (`paddle merge_model`) from C++,
// linking the engine library (py_paddle/libpaddle_engine.so) and its API header:
//
//   g++ -O2 predict.cpp -o predict $(paddle build_java --cxxflags)   (or: make)
//   ./predict MODEL DATA [PREDICTIONS]
//
// DATA is a file of demos/java/prepare_data.py; PREDICTIONS, when given, receives
// the class probabilities as little-endian float32 [rows, classes].
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "swig/PaddleAPI.h"

namespace {

struct Digits {
  int32_t rows = 0, cols = 0;
  std::vector<float> pixels;
  std::vector<int32_t> labels;
};

Digits readDigits(const char* path) {
  std::ifstream in(path, std::ios::binary);
  Digits d;
  if (!in.read(reinterpret_cast<char*>(&d.rows), 4) || !in.read(reinterpret_cast<char*>(&d.cols), 4) ||
      d.rows <= 0 || d.cols <= 0)
    throw std::runtime_error(std::string(path) + ": not a digits data file");
  d.pixels.resize(size_t(d.rows) * d.cols);
  d.labels.resize(d.rows);
  if (!in.read(reinterpret_cast<char*>(d.pixels.data()), d.pixels.size() * 4) ||
      !in.read(reinterpret_cast<char*>(d.labels.data()), d.labels.size() * 4))
    throw std::runtime_error(std::string(path) + ": the file is truncated");
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: predict MODEL DATA [PREDICTIONS]\n";
    return 2;
  }
  try {
    Digits data = readDigits(argv[2]);
    // The API hands out objects the caller owns.
    std::unique_ptr<Predictor> predictor(Predictor::createFromMergedModel(argv[1]));
    std::unique_ptr<Arguments> in(Arguments::createArguments(1));
    in->setSlotValueFromBuffer(0, data.pixels.data(), data.rows, data.cols);
    std::unique_ptr<Arguments> out(predictor->forward(*in));
    std::unique_ptr<Matrix> value(out->getSlotValue(0));
    size_t classes = value->getWidth();
    std::vector<float> probabilities(size_t(data.rows) * classes);
    value->copyToNumpyMat(probabilities.data(), data.rows, classes);
    int correct = 0;
    for (int32_t i = 0; i < data.rows; ++i) {
      const float* row = &probabilities[i * classes];
      if (std::max_element(row, row + classes) - row == data.labels[i]) ++correct;
    }
    std::printf("%d images, accuracy %.4f\n", data.rows, double(correct) / data.rows);
    if (argc > 3) {
      std::ofstream file(argv[3], std::ios::binary);
      file.write(reinterpret_cast<const char*>(probabilities.data()), probabilities.size() * 4);
      if (!file) throw std::runtime_error(std::string("cannot write ") + argv[3]);
    }
  } catch (const std::exception& e) {  // engine errors are C++ exceptions (engine/Errors.h)
    std::cerr << "predict: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
