// The engine's public API: the stable surface SWIG exposes to Python
// (py_paddle.swig_paddle) and to other languages. Names follow v1's
// paddle/api/PaddleAPI.h. Engine errors arrive as C++ exceptions that the
// wrappers turn into the target language's exceptions.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace paddle {
class GradientMachine;
class Parameter;
class Trainer;
class ParameterUpdater;
struct Argument;
template <typename T> class DenseBuffer;
}  // namespace paddle

// v1 enum values (paddle/utils/GlobalConstants.h)
enum PassType { PASS_TRAIN = 0, PASS_TEST = 1, PASS_GC = 2 };
enum ParameterType {
  PARAMETER_VALUE = 0, PARAMETER_GRADIENT = 1, PARAMETER_MOMENTUM = 2, PARAMETER_SUM1 = 3,
  PARAMETER_SUM2 = 4, PARAMETER_SUM3 = 5, PARAMETER_LEARNING_RATE = 6, PARAMETER_UPDATE_TIME = 7,
  PARAMETER_DELTA = 8, PARAMETER_GRADIENT_SUM = 9, PARAMETER_GRADIENT_SQURESUM = 10,
  PARAMETER_GRADIENT_SQURESUM1 = 11, PARAMETER_ROWS = 12, PARAMETER_COLS = 13,
  PARAMETER_SECOND_MOMENTUM = 14, PARAMETER_WEIGHTED_INFINITY_NORM = 15, PARAMETER_APPLY = 16,
  PARAMETER_MOMENTUM_UT = 17, PARAMETER_MOMENTUM_VT = 18, NUM_PARAMETER_TYPES = 19
};

// Flags as v1's initPaddle takes them: "--use_gpu=0", "--trainer_count=2", "--seed=1".
void initPaddle(const std::vector<std::string>& args);
bool isGpuVersion();    // built WITH_CUDA
bool isUsingGpu();
void setUseGpu(bool useGpu);
int getTrainerCount();
int getGpuCount();      // visible GPUs (0 without CUDA or driver)
// The engine's pooled GPU memory: (cudaMalloc calls, bytes held, peak bytes held); zeros without CUDA.
std::vector<size_t> getGpuMemoryStats();
std::string getVersion();
// The layer types (v1 type strings) the engine can build, sorted.
std::vector<std::string> getLayerTypes();

class Matrix {
 public:
  ~Matrix();
  static Matrix* createZero(size_t height, size_t width, bool useGpu = false);
  static Matrix* createDense(const std::vector<float>& data, size_t height, size_t width, bool useGpu = false);
  // From a C-contiguous float32 2-D buffer: copies it (copy=false aliases it on the CPU).
  static Matrix* createDenseFromNumpy(float* data, size_t height, size_t width, bool copy = true,
                                      bool useGpu = false);
  size_t getHeight() const;
  size_t getWidth() const;
  float get(size_t x, size_t y) const;  // row x, column y
  void set(size_t x, size_t y, float v);
  bool isGpu() const;
  std::vector<float> getData() const;
  void copyToNumpyMat(float* out, size_t height, size_t width) const;  // into a buffer of equal shape
  void copyFromNumpyMat(float* data, size_t height, size_t width);      // resizes to the buffer's shape
  unsigned long long dataPointer() const;  // CPU address for numpy views
  // GPU matrices: the device address (after the device has finished its work), for
  // __cuda_array_interface__; and a matrix over a device buffer (copy=false aliases it).
  unsigned long long devicePointer() const;
  static Matrix* createDenseFromDevicePointer(unsigned long long ptr, size_t height, size_t width, bool copy = true);

 private:
  Matrix();
  friend class Arguments;
  friend class Vector;
  friend class Parameter;
  std::shared_ptr<paddle::DenseBuffer<float>> m_;
};

class IVector {
 public:
  ~IVector();
  static IVector* createZero(size_t size, bool useGpu = false);
  static IVector* create(const std::vector<int>& data, bool useGpu = false);
  static IVector* createVectorFromNumpy(int* data, size_t size, bool copy = true, bool useGpu = false);
  size_t getSize() const;
  int get(size_t i) const;
  void set(size_t i, int v);
  bool isGpu() const;
  std::vector<int> getData() const;
  void copyToNumpyArray(int* out, size_t size) const;
  void copyFromNumpyArray(int* data, size_t size);
  unsigned long long dataPointer() const;
  unsigned long long devicePointer() const;
  static IVector* createVectorFromDevicePointer(unsigned long long ptr, size_t size, bool copy = true);

 private:
  IVector();
  friend class Arguments;
  std::shared_ptr<paddle::DenseBuffer<int>> v_;
};

// A float vector; parameter buffers are Vectors that share memory with the engine.
class Vector {
 public:
  ~Vector();
  static Vector* createZero(size_t size, bool useGpu = false);
  static Vector* create(const std::vector<float>& data, bool useGpu = false);
  static Vector* createVectorFromNumpy(float* data, size_t size, bool copy = true, bool useGpu = false);
  size_t getSize() const;
  float get(size_t i) const;
  void set(size_t i, float v);
  bool isGpu() const;
  std::vector<float> getData() const;
  void copyToNumpyArray(float* out, size_t size) const;
  void copyFromNumpyArray(float* data, size_t size);
  unsigned long long dataPointer() const;
  unsigned long long devicePointer() const;
  static Vector* createVectorFromDevicePointer(unsigned long long ptr, size_t size, bool copy = true);

 private:
  Vector();
  friend class Parameter;
  std::shared_ptr<paddle::DenseBuffer<float>> v_;
};

// One slot per data layer (inputs) or output layer (outputs).
class Arguments {
 public:
  ~Arguments();
  static Arguments* createArguments(size_t slotNum);
  size_t getSlotNum() const;
  void resize(size_t slotNum);
  Matrix* getSlotValue(size_t idx) const;  // None when empty
  Matrix* getSlotGrad(size_t idx) const;
  IVector* getSlotIds(size_t idx) const;
  IVector* getSlotSequenceStartPositions(size_t idx) const;
  IVector* getSlotSubSequenceStartPositions(size_t idx) const;
  void setSlotValue(size_t idx, Matrix* mat);  // shares memory, no copy
  void setSlotIds(size_t idx, IVector* vec);
  void setSlotSequenceStartPositions(size_t idx, IVector* vec);
  void setSlotSubSequenceStartPositions(size_t idx, IVector* vec);
  void setSlotFrameHeight(size_t idx, size_t h);
  void setSlotFrameWidth(size_t idx, size_t w);
  size_t getSlotFrameHeight(size_t idx) const;
  size_t getSlotFrameWidth(size_t idx) const;
  // Bulk copies from C-contiguous buffers (one memcpy each): the data feed's fast path.
  void setSlotValueFromBuffer(size_t idx, float* data, size_t height, size_t width);
  void setSlotIdsFromBuffer(size_t idx, int* data, size_t size);
  void setSlotSequenceStartPositionsFromBuffer(size_t idx, int* data, size_t size);
  void setSlotSubSequenceStartPositionsFromBuffer(size_t idx, int* data, size_t size);
  // A sparse slot (CSR, host memory): rows = row offsets [rows + 1] (absolute
  // into cols), cols = column ids [nnz], values = [nnz] floats or empty for
  // sparse_binary_vector (every value 1); width = the slot's dimension.
  void setSlotSparseFromBuffers(size_t idx, int* rows, size_t rowsSize, int* cols, size_t colsSize,
                                float* values, size_t valuesSize, size_t width);
  bool isSlotSparse(size_t idx) const;
  size_t getBatchSize(size_t idx = 0) const;
  double sum() const;  // sum of all value matrices: the batch cost for cost outputs

 private:
  Arguments();
  friend class GradientMachine;
  friend class Trainer;
  std::shared_ptr<std::vector<paddle::Argument>> args_;
  paddle::Argument& at(size_t idx) const;
  static Matrix* wrap(const paddle::DenseBuffer<float>& m);   // aliases, None when empty
  static IVector* wrap(const paddle::DenseBuffer<int>& v);
};

class Parameter {
 public:
  ~Parameter();
  std::string getName() const;
  size_t getSize() const;
  std::vector<size_t> getDims() const;
  bool isStatic() const;
  Vector* getBuf(ParameterType type);  // shares memory with the engine
  void save(const std::string& path) const;
  void load(const std::string& path);

 private:
  Parameter();
  friend class GradientMachine;
  friend class ParameterUpdater;
  friend class Arguments;
  std::shared_ptr<paddle::Parameter> p_;
  std::shared_ptr<void> owner_;  // keeps the machine that owns p_ alive
};

class GradientMachine {
 public:
  ~GradientMachine();
  // modelConfigJson: protobuf JSON of a v1 ModelConfig (py_paddle adds createFromConfigProto).
  static GradientMachine* createByConfigJson(const std::string& modelConfigJson, bool useGpu = false,
                                             unsigned long long seed = 1);
  void forward(const Arguments& inArgs, Arguments* outArgs, PassType passType);
  void backward();
  void forwardBackward(const Arguments& inArgs, Arguments* outArgs, PassType passType);
  size_t getParameterSize() const;
  Parameter* getParameter(size_t i) const;
  Parameter* getParameterByName(const std::string& name) const;
  void randParameters();
  void loadParameters(const std::string& dir);
  void saveParameters(const std::string& dir) const;
  Arguments* getLayerOutput(const std::string& layerName) const;
  std::vector<std::string> getInputLayerNames() const;
  std::vector<std::string> getOutputLayerNames() const;
  // Let data layers keep gradients (read them with Arguments.getSlotGrad on getLayerOutput).
  void setNeedInputGradient(bool need);

 private:
  GradientMachine();
  friend class ParameterUpdater;
  friend class Trainer;
  std::shared_ptr<paddle::GradientMachine> m_;
};

// v1's local updater: apply the optimizer of an OptimizationConfig to parameters.
class ParameterUpdater {
 public:
  ~ParameterUpdater();
  static ParameterUpdater* createLocalUpdater(const std::string& optConfigJson);
  void startPass(int pass);
  void startBatch(size_t batchSize);
  void update(Parameter* param);
  void finishBatch();
  void finishPass(size_t batchesInPass);
  void apply();    // ModelAverage: swap in the averaged weights
  void restore();  // ... and back
  void catchUp();  // sparse_update: apply the decay untouched rows still owe
  double getLearningRate() const;

 private:
  ParameterUpdater();
  std::shared_ptr<paddle::ParameterUpdater> u_;
};

// The training engine behind `paddle train` (see trainer/Trainer.h).
class Trainer {
 public:
  ~Trainer();
  static Trainer* create(const std::string& trainerConfigJson, bool useGpu = false, int trainerCount = 1,
                         unsigned long long seed = 1);
  GradientMachine* getGradientMachine() const;
  void randParameters();
  void loadParameters(const std::string& dir);
  void saveParameters(const std::string& dir);  // averaged weights under ModelAverage
  void saveOptimizerState(const std::string& dir) const;
  void loadOptimizerState(const std::string& dir);
  size_t getBatchSize() const;

  void startTrainPass(int pass);
  void finishTrainPass();
  void trainOneDataBatch(size_t batchSize, const Arguments& args);
  void startPeriod();  // restart the "since last log" statistics
  double getPassCost() const;
  long long getPassSamples() const;
  std::string getPassEval() const;
  double getPeriodCost() const;
  long long getPeriodSamples() const;
  std::string getPeriodEval() const;
  std::vector<std::string> getEvaluatorNames() const;
  std::vector<double> getPassEvalValues() const;
  double getLearningRate() const;
  // v1 --show_parameter_stats_period: record gradient statistics during the next
  // batch, then read one line per parameter (value and gradient magnitudes).
  void setRecordParameterStats(bool on);
  std::vector<std::string> getParameterStats() const;

  void startTestPeriod();
  void testOneDataBatch(size_t batchSize, const Arguments& args);
  void finishTestPeriod();
  double getTestCost() const;
  long long getTestSamples() const;
  std::string getTestEval() const;
  std::vector<double> getTestEvalValues() const;

 private:
  Trainer();
  std::shared_ptr<paddle::Trainer> t_;
};
