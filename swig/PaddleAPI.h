// The engine's public API: the stable surface SWIG exposes to Python
// (py_paddle.swig_paddle) and to other languages. Names follow v1's
// paddle/api/PaddleAPI.h. Engine errors arrive as C++ exceptions that the
// wrappers turn into the target language's exceptions.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace paddle {
class GradientMachine;
class Parameter;
class Trainer;
class ParameterUpdater;
class Evaluator;
class Predictor;
struct Argument;
struct SparseMatrix;
template <typename T> class DenseBuffer;
}  // namespace paddle

// v1 enum values (paddle/utils/GlobalConstants.h). The metric passes run the
// network as PASS_TEST (PASS_METRIC) or PASS_TRAIN (the other two) would.
enum PassType {
  PASS_TRAIN = 0, PASS_TEST = 1, PASS_GC = 2, PASS_METRIC = 3, PASS_METRIC_TRAIN = 4,
  PASS_METRIC_TRAIN_WITH_NOERROR = 5
};
enum ParameterType {
  PARAMETER_VALUE = 0, PARAMETER_GRADIENT = 1, PARAMETER_MOMENTUM = 2, PARAMETER_SUM1 = 3,
  PARAMETER_SUM2 = 4, PARAMETER_SUM3 = 5, PARAMETER_LEARNING_RATE = 6, PARAMETER_UPDATE_TIME = 7,
  PARAMETER_DELTA = 8, PARAMETER_GRADIENT_SUM = 9, PARAMETER_GRADIENT_SQURESUM = 10,
  PARAMETER_GRADIENT_SQURESUM1 = 11, PARAMETER_ROWS = 12, PARAMETER_COLS = 13,
  PARAMETER_SECOND_MOMENTUM = 14, PARAMETER_WEIGHTED_INFINITY_NORM = 15, PARAMETER_APPLY = 16,
  PARAMETER_MOMENTUM_UT = 17, PARAMETER_MOMENTUM_VT = 18, NUM_PARAMETER_TYPES = 19
};

enum SparseValueType { SPARSE_NON_VALUE = 0, SPARSE_VALUE = 1 };
enum SparseFormatType { SPARSE_CSR = 0, SPARSE_CSC = 1 };
// "no row": ParameterOptimizer.update of a whole parameter.
const size_t NO_SPARSE_ID = static_cast<size_t>(-1);
// v1's spelling. Buffers are allocated on first use whatever the mode.
enum GradientMatchineCreateMode {
  CREATE_MODE_NORMAL = 0, CREATE_MODE_SGD_SPARSE_CPU_TRAINING = 3, CREATE_MODE_TESTING = 4
};

// Flags as v1's initPaddle takes them: "--use_gpu=0", "--trainer_count=2", "--seed=1".
void initPaddle(const std::vector<std::string>& args);
bool isGpuVersion();    // built WITH_CUDA
bool isMpiVersion();    // built with MPI (distributed training under mpiexec)
bool isUsingGpu();
void setUseGpu(bool useGpu);
int getTrainerCount();
#ifndef SWIG
// initPaddle's --predict_file (where v1's validation layers wrote their samples), for Trainer.create.
const std::string& getPredictFile();
#endif
int getGpuCount();      // visible GPUs (0 without CUDA or driver)
// The engine's pooled GPU memory: (cudaMalloc calls, bytes held, peak bytes held); zeros without CUDA.
std::vector<size_t> getGpuMemoryStats();
// The engine's Matrix / IVector storage (host and GPU): (bytes held, peak bytes held since
// the last reset); resetPeak restarts the peak from what is held now.
std::vector<size_t> getBufferMemoryStats(bool resetPeak = false);
std::string getVersion();
// The SIMD extensions the engine was compiled for (e.g. "sse4_2 avx avx2 fma avx512f").
std::string getBuildCpuFeatures();
// The layer types (v1 type strings) the engine can build, sorted.
std::vector<std::string> getLayerTypes();

// Dense (the engine's memory, on the CPU or the GPU) or sparse CSR (host memory).
class Matrix {
 public:
  ~Matrix();
  static Matrix* createZero(size_t height, size_t width, bool useGpu = false);
  static Matrix* createDense(const std::vector<float>& data, size_t height, size_t width, bool useGpu = false);
  // From a C-contiguous float32 2-D buffer: copies it (copy=false aliases it on the CPU).
  static Matrix* createDenseFromNumpy(float* data, size_t height, size_t width, bool copy = true,
                                      bool useGpu = false);
  // v1's sparse input: CSR with room for nnz entries, filled by sparseCopyFrom.
  // Sparse data stays in host memory (layers on the GPU read it from there), so
  // useGpu is accepted and has no effect; trans (CSC) is not supported.
  static Matrix* createSparse(size_t height, size_t width, size_t nnz, bool isNonVal = true, bool trans = false,
                              bool useGpu = false);
  // rows: height + 1 offsets into cols; values: one per column id, empty when non-value.
  void sparseCopyFrom(const std::vector<int>& rows, const std::vector<int>& cols,
                      const std::vector<float>& values = std::vector<float>());
  bool isSparse() const;
  SparseValueType getSparseValueType() const;
  SparseFormatType getSparseFormat() const;
  std::vector<int> getSparseRowCols(size_t i) const;                       // column ids of row i
  std::vector<std::pair<int, float>> getSparseRowColsVal(size_t i) const;  // (column, value) of row i

  size_t getHeight() const;
  size_t getWidth() const;
  float get(size_t x, size_t y) const;  // row x, column y
  void set(size_t x, size_t y, float v);
  bool isGpu() const;
  std::vector<float> getData() const;
  void copyToNumpyMat(float* out, size_t height, size_t width) const;  // into a buffer of equal shape
  void copyFromNumpyMat(float* data, size_t height, size_t width);      // resizes to the buffer's shape
  unsigned long long dataPointer() const;  // CPU address for numpy views
  // A matrix over this one's memory that keeps it alive when this one reallocates
  // (copyFromNumpyMat to a larger shape): what a numpy view holds on to.
  Matrix* shareMemory() const;
  // GPU matrices: the device address (after the device has finished its work), for
  // __cuda_array_interface__; and a matrix over a device buffer (copy=false aliases it).
  unsigned long long devicePointer() const;
  static Matrix* createDenseFromDevicePointer(unsigned long long ptr, size_t height, size_t width, bool copy = true);

 private:
  Matrix();
  paddle::DenseBuffer<float>& dense() const;  // UnsupportedError for a sparse matrix
  const paddle::SparseMatrix& sparse() const;  // UnsupportedError for a dense one
  friend class Arguments;
  friend class Vector;
  friend class Parameter;
  std::shared_ptr<paddle::DenseBuffer<float>> m_;
  std::shared_ptr<paddle::SparseMatrix> s_;
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
  IVector* shareMemory() const;  // as Matrix::shareMemory
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
  void copyFrom(Vector* src);  // same size (IndexError otherwise), any device
  void copyToNumpyArray(float* out, size_t size) const;
  void copyFromNumpyArray(float* data, size_t size);
  unsigned long long dataPointer() const;
  Vector* shareMemory() const;  // as Matrix::shareMemory
  // The values of a v1 parameter file, read by the engine's own reader (Parameter::load:
  // regular files only, header, size, no bytes after); NaN or inf values are refused.
  static Vector* createFromParameterFile(const std::string& path);
  unsigned long long devicePointer() const;
  static Vector* createVectorFromDevicePointer(unsigned long long ptr, size_t size, bool copy = true);

 private:
  Vector();
  friend class Parameter;
  friend class ParameterOptimizer;
  std::shared_ptr<paddle::DenseBuffer<float>> v_;
};

// One slot per data layer (inputs) or output layer (outputs).
class Arguments {
 public:
  ~Arguments();
  static Arguments* createArguments(size_t slotNum);
  size_t getSlotNum() const;
  void resize(size_t slotNum);
  Matrix* getSlotValue(size_t idx) const;  // None when empty; a sparse Matrix for sparse input
  Matrix* getSlotGrad(size_t idx) const;
  Matrix* getSlotIn(size_t idx) const;
  IVector* getSlotIds(size_t idx) const;
  IVector* getSlotSequenceStartPositions(size_t idx) const;
  IVector* getSlotSubSequenceStartPositions(size_t idx) const;
  IVector* getSlotSequenceDim(size_t idx) const;
  // Setters share memory, no copy; None clears the field.
  void setSlotValue(size_t idx, Matrix* mat);  // a sparse Matrix makes a sparse slot
  void setSlotGrad(size_t idx, Matrix* mat);
  void setSlotIn(size_t idx, Matrix* mat);
  void setSlotIds(size_t idx, IVector* vec);
  void setSlotSequenceStartPositions(size_t idx, IVector* vec);
  void setSlotSubSequenceStartPositions(size_t idx, IVector* vec);
  void setSlotSequenceDim(size_t idx, IVector* vec);
  void setSlotFrameHeight(size_t idx, size_t h);
  void setSlotFrameWidth(size_t idx, size_t w);
  size_t getSlotFrameHeight(size_t idx = 0) const;
  size_t getSlotFrameWidth(size_t idx = 0) const;
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
  friend class Predictor;
  std::shared_ptr<std::vector<paddle::Argument>> args_;
  paddle::Argument& at(size_t idx) const;
  static Matrix* wrap(const paddle::DenseBuffer<float>& m);   // aliases, None when empty
  static IVector* wrap(const paddle::DenseBuffer<int>& v);
};

// v1's config objects. Each holds the protobuf JSON of its message; py_paddle
// adds the protobuf conversions (createFromProtoString, toProto, ...).
class ParameterConfig {
 public:
  static ParameterConfig* createFromJson(const std::string& json);
  std::string toJson() const;

 private:
  ParameterConfig() = default;
  friend class Parameter;
  friend class ParameterOptimizer;
  std::string json_;
};

class OptimizationConfig {
 public:
  static OptimizationConfig* createFromJson(const std::string& json);
  std::string toJson() const;

 private:
  OptimizationConfig() = default;
  friend class TrainerConfig;
  friend class ParameterUpdater;
  friend class ParameterOptimizer;
  std::string json_;
};

class ModelConfig {
 public:
  static ModelConfig* createFromJson(const std::string& json);
  std::string toJson() const;

 private:
  ModelConfig() = default;
  friend class TrainerConfig;
  friend class GradientMachine;
  std::string json_;
};

class TrainerConfig {
 public:
  static TrainerConfig* createFromJson(const std::string& json);
  std::string toJson() const;
  ModelConfig* getModelConfig() const;
  OptimizationConfig* getOptimizationConfig() const;

 private:
  TrainerConfig() = default;
  friend class Trainer;
  std::string json_;
};

class Parameter {
 public:
  ~Parameter();
  std::string getName() const;
  size_t getID() const;  // its index in the model's parameters
  size_t getSize() const;
  std::vector<size_t> getDims() const;
  bool isStatic() const;
  ParameterConfig* getConfig() const;
  Vector* getBuf(ParameterType type);  // shares memory with the engine; made (zeroed) if absent
  bool hasBuf(ParameterType type) const;
  // v1 told other copies of the value (GPU replicas, a parameter server) that it
  // changed; replicas here read the one value buffer, so there is nothing to tell.
  void setValueUpdated();
  bool save(const std::string& path) const;  // True, or an exception
  bool load(const std::string& path);

 private:
  Parameter();
  friend class GradientMachine;
  friend class ParameterUpdater;
  friend class Arguments;
  std::shared_ptr<paddle::Parameter> p_;
  std::shared_ptr<void> owner_;  // keeps the machine that owns p_ alive
  size_t id_ = 0;
};

// One number an evaluator reports, as its log line names it. Python receives a list of
// (name, value, higher_is_better) tuples instead, higher_is_better None for counts and
// settings; Java an EvaluatorFieldVector of these.
struct EvaluatorField {
  std::string name;
  double value = 0;
  int better = -1;  // 1: higher is better, -1: lower is better, 0: neither (a count, a setting)
};

// The evaluators of a model config (v1's combined Evaluator of a GradientMachine).
class Evaluator {
 public:
  ~Evaluator();
  void start();   // clears the running values
  void finish();  // the values are final (they are kept up to date already)
  std::string toString() const;  // "name=value ..."; __repr__ in Python
  std::vector<EvaluatorField> getFields() const;  // what toString prints, as data
  std::vector<std::string> getNames() const;
  double getValue(const std::string& name) const;

 private:
  Evaluator();
  friend class GradientMachine;
  std::vector<std::unique_ptr<paddle::Evaluator>> e_;
  std::shared_ptr<void> owner_;  // the machine the evaluators read
};

class GradientMachine {
 public:
  ~GradientMachine();
  // modelConfigJson: protobuf JSON of a v1 ModelConfig (py_paddle adds createFromConfigProto).
  static GradientMachine* createByConfigJson(const std::string& modelConfigJson, bool useGpu = false,
                                             unsigned long long seed = 1);
  // v1: the machine of TrainerConfig.getModelConfig(); parameterTypes are accepted
  // for v1 scripts (buffers are made when an optimizer first needs them).
  static GradientMachine* createByModelConfig(ModelConfig* conf, GradientMatchineCreateMode mode = CREATE_MODE_NORMAL,
                                              const std::vector<int>& parameterTypes = std::vector<int>());
  // A merged model (`paddle merge_model`): its config and parameters in one file.
  static GradientMachine* createFromMergedModel(const std::string& path, bool useGpu = false);
  void saveMergedModel(const std::string& path) const;
  // v1 brackets use with start()/finish() (its prefetch threads); nothing runs
  // in the background here, so both do nothing (kept for v1 scripts).
  void start();
  void finish();
  void prefetch(const Arguments& inArgs);  // v1's remote sparse rows: nothing to fetch locally
  void onPassEnd();
  void forward(const Arguments& inArgs, Arguments* outArgs, PassType passType);
  void backward();  // py_paddle adds v1's update callback argument
  void forwardBackward(const Arguments& inArgs, Arguments* outArgs, PassType passType);
  size_t getParameterSize() const;
  Parameter* getParameter(size_t i) const;
  size_t getNonStaticParameterSize() const;
  Parameter* getNonStaticParameter(size_t i) const;
  Parameter* getParameterByName(const std::string& name) const;
  void randParameters();
  void loadParameters(const std::string& dir);
  void saveParameters(const std::string& dir) const;
  // outputName: one of the layer's extra outputs (a generating group's "scores").
  Arguments* getLayerOutput(const std::string& layerName, const std::string& outputName = "") const;
  std::string getModelConfigJson() const;
  bool isGpu() const;
  std::vector<std::string> getInputLayerNames() const;
  std::vector<std::string> getOutputLayerNames() const;
  // Let data layers keep gradients (read them with Arguments.getSlotGrad on getLayerOutput).
  void setNeedInputGradient(bool need);
  // Not in v1: "fp32" or "bf16", the arithmetic of the layers' matrix products (settings'
  // precision); getPrecision() says which runs ("fp32" where the CPU lacks AVX512_BF16).
  void setPrecision(const std::string& precision);
  std::string getPrecision() const;
  // Not in v1: the layers recomputation keeps (settings(recompute=...)); empty when it is off.
  std::vector<std::string> getRecomputeCheckpoints() const;
  Evaluator* makeEvaluator();  // the config's evaluators, started
  void eval(Evaluator* evaluator);  // adds the last forward's batch

 private:
  GradientMachine();
  friend class ParameterUpdater;
  friend class Trainer;
  std::shared_ptr<paddle::GradientMachine> m_;
};

// Serving a merged model: forward() may be called from several threads at once
// (each call runs on a network of its own that reads one shared copy of the
// parameters), and returns outputs the caller owns.
class Predictor {
 public:
  ~Predictor();
  static Predictor* createFromMergedModel(const std::string& path, bool useGpu = false);
  Arguments* forward(const Arguments& inArgs);
  std::vector<std::string> getInputLayerNames() const;
  std::vector<std::string> getOutputLayerNames() const;

 private:
  Predictor();
  std::shared_ptr<paddle::Predictor> p_;
};

// v1's ParameterOptimizer (2016 API): one optimizer applied to buffers the caller
// passes in getParameterTypes() order.
class ParameterOptimizer {
 public:
  ~ParameterOptimizer();
  static ParameterOptimizer* create(OptimizationConfig* config);
  void init(size_t numRows, const ParameterConfig* config);
  void startPass();
  void finishPass();
  void startBatch(size_t numSamplesProcessed);  // samples so far, this batch included
  void finishBatch();
  // vecs: the buffers named by getParameterTypes(), in that order. sparseId:
  // NO_SPARSE_ID updates the whole parameter, a row id only that row.
  void update(const std::vector<Vector*>& vecs, const ParameterConfig& conf, size_t sparseId = NO_SPARSE_ID);
  std::vector<int> getParameterTypes() const;

 private:
  ParameterOptimizer();
  std::shared_ptr<paddle::ParameterUpdater> u_;
  std::vector<std::shared_ptr<paddle::Parameter>> params_;  // one per parameter name, aliasing the caller's buffers
  int pass_ = 0;
  int64_t batches_ = 0;
};

// v1's local updater: apply the optimizer of an OptimizationConfig to parameters.
class ParameterUpdater {
 public:
  ~ParameterUpdater();
  static ParameterUpdater* createLocalUpdater(const std::string& optConfigJson);
  static ParameterUpdater* createLocalUpdater(OptimizationConfig* config);
  // v1's parameter-server updaters: refused (UnsupportError); multi-process
  // training is data parallel over MPI.
  static ParameterUpdater* createRemoteUpdater(OptimizationConfig* config, int passCount, bool useSparseUpdater);
  static ParameterUpdater* createNewRemoteUpdater(OptimizationConfig* config, const std::string& pserverSpec);
  void init(const GradientMachine& gm);  // its non-static parameters (needed for global-norm clipping)
  void startPass(int pass = -1);            // -1: the pass after the last one
  PassType startBatch(size_t batchSize);    // PASS_TRAIN
  void update(Parameter* param);
  void finishBatch(float cost = 0);  // cost: accepted for v1 scripts, not used
  void finishPass(long long batchesInPass = -1);  // -1: the batches since startPass
  void getParametersRemote(bool fullSize = false, bool apply = false);  // local: values are current
  void apply();    // ModelAverage: swap in the averaged weights
  void restore();  // ... and back
  void catchUpWith();  // sparse_update: apply the decay untouched rows still owe
  void catchUp();      // (the same)
  double getLearningRate() const;

 private:
  ParameterUpdater();
  std::shared_ptr<paddle::ParameterUpdater> u_;
  std::vector<std::shared_ptr<paddle::Parameter>> params_;  // from init()
  bool clipped_ = false;                    // global-norm clipping done for this batch
  int nextPass_ = 0;
  long long batches_ = 0;
};

// The training engine behind `paddle train` (see trainer/Trainer.h).
// Distributed: how gradients travel between the ranks (paddle train's --bucket_cap_mb,
// --overlap_allreduce, --local_sgd_steps, --dgc_sparsity, --dgc_rampup_begin_step,
// --dgc_momentum, --collective_timeout; trainer/GradientSync.h).
struct CollectiveOptions {
  double bucketMb = 1;
  bool overlap = true;
  int localSgdSteps = 0;
  double dgcSparsity = -1;  // < 0: no DGC
  int dgcRampupBeginStep = 0;
  double dgcMomentum = 0;
  double timeoutSeconds = 0;  // > 0: a wait in one MPI exchange longer than this ends the job
  bool bf16Gradients = false;  // dense gradient all-reduces in bfloat16 (half the bytes)
};

// Distributed: one rank's gradient traffic over some steps.
struct CollectiveTraffic {
  long long steps = 0;       // gradient exchanges
  double denseBytes = 0;     // all-reduced
  double sparseBytes = 0;    // row ids and rows all-gathered
  double mpiSeconds = 0;     // the training thread's wait on MPI
  double dgcBytes = 0;       // DGC (index, value) pairs
  double earlyBytes = 0;     // dense bytes whose all-reduce started during backward
};

// Sharded tables (--local=0), one entry per table in each column.
struct ShardedTableRows {
  std::vector<std::string> names;
  std::vector<size_t> rows;      // the whole table's
  std::vector<size_t> resident;  // rows of the value's range in this rank's memory (its own)
  std::vector<size_t> fetched;   // rows fetched from their owners for the last batch
};

class Trainer {
 public:
  ~Trainer();
  // distributed: data parallel over the MPI ranks (MPI initialised first, e.g. by mpi4py);
  // every rank is given the same batches and trains on its share of each. shardTables
  // (distributed, v1's --local=0): each sparse_remote_update table's rows are split over the ranks.
  // trainerCount 0: chosen from the model and the CPU threads (see getReplicaCount).
  static Trainer* create(const std::string& trainerConfigJson, bool useGpu = false, int trainerCount = 1,
                         unsigned long long seed = 1, bool distributed = false, bool shardTables = false);
  // v1: a trainer over `gm` (its parameters as they are), or over a new machine
  // (initialised from the seed) when gm is None. Flags from initPaddle.
  static Trainer* create(TrainerConfig* config, GradientMachine* gm);
  GradientMachine* getGradientMachine() const;
  void randParameters();
  void loadParameters(const std::string& dir);
  void saveParameters(const std::string& dir);  // averaged weights under ModelAverage
  void saveOptimizerState(const std::string& dir) const;
  void loadOptimizerState(const std::string& dir);
  size_t getBatchSize() const;
  int getReplicaCount() const;  // gradient-machine replicas, each training its share of a batch

  void startTrain();   // passes count from 0 again
  void finishTrain();
  void startTrainPass(int pass = -1);  // -1: the pass after the last one
  void finishTrainPass();
  void trainOneDataBatch(size_t batchSize, const Arguments& args);
  // Forward in test mode without statistics (v1 forwardOneBatch); then
  // getForwardOutput / getLayerOutput read the results.
  void forwardOneDataBatch(const Arguments& args);
  Arguments* getForwardOutput() const;
  Arguments* getLayerOutput(const std::string& layerName) const;
  void startPeriod();  // restart the "since last log" statistics
  double getPassCost() const;
  long long getPassSamples() const;
  std::string getPassEval() const;
  std::vector<EvaluatorField> getPassEvalFields() const;  // getPassEval as data
  double getPeriodCost() const;
  long long getPeriodSamples() const;
  std::string getPeriodEval() const;
  std::vector<EvaluatorField> getPeriodEvalFields() const;
  std::vector<std::string> getEvaluatorNames() const;
  std::vector<double> getPassEvalValues() const;
  double getLearningRate() const;
  // v1 --show_parameter_stats_period: record gradient statistics during the next
  // batch, then read one line per parameter (value and gradient magnitudes).
  void setRecordParameterStats(bool on);
  std::vector<std::string> getParameterStats() const;
  // Opt-in timers of the main replica (v1's ForwardTimer / BackwardTimer, a build option
  // there): on starts them from zero. getProfile: one line per layer, then one for the
  // update (and, with replicas, one for summing their gradients), "name\ttype\tforward
  // seconds\tbackward seconds\tcalls", summed since.
  void setProfiling(bool on);
  std::vector<std::string> getProfile() const;

  void startTestPeriod();
  void testOneDataBatch(size_t batchSize, const Arguments& args);
  void finishTestPeriod();
  double getTestCost() const;
  long long getTestSamples() const;
  std::string getTestEval() const;
  std::vector<EvaluatorField> getTestEvalFields() const;
  std::vector<double> getTestEvalValues() const;
  // Distributed: this rank's traffic since the last call (which restarts the count).
  CollectiveTraffic takeCollectiveTraffic();
  // Distributed: how gradients travel (ignored when not distributed).
  void setCollectiveOptions(const CollectiveOptions& options);
  // Distributed, each rank reading its own files: batches are not split, and
  // anyRankHasData (a collective) tells whether some rank still has a batch this step.
  void setShardedData(bool on);
  bool anyRankHasData(bool mine);
  // The TrainerConfig as the engine holds it (protobuf JSON): what ranks compare at start.
  std::string getConfigJson() const;
  // Sharded tables: rank 0 saves them with every rank's rows, so after each pass's saving
  // (or none) every rank calls this: rank 0 says saving is over, the others send their rows
  // whenever rank 0 saves until then. (Does nothing without sharded tables.)
  void serveShards();
  // Sharded tables: each one's name, its rows, the rows of its value's range this rank holds in
  // memory (its own) and the rows fetched for the last batch.
  ShardedTableRows getShardedRows() const;
  // Up to `limit` batches with a non-finite cost are skipped (no update) instead of stopping.
  void setSkipNonFiniteBatches(long long limit);
  // Why the last trainOneDataBatch skipped its batch; "" when it trained on it.
  std::string lastSkippedBatch() const;

 private:
  Trainer();
  // Distributed, every rank reading the same data: before each batch (and at the pass end,
  // with none) the ranks compare whether they have one, its size and a hash of its data,
  // so a rank whose data differs or ends early is an error naming it instead of a hang.
  void agreeOnBatch(bool has, size_t samples, const Arguments* args);
  std::shared_ptr<paddle::Trainer> t_;
  int nextPass_ = 0;
  int pass_ = 0;
  long long step_ = 0;  // batches of this pass
  bool shardedData_ = false;
};
