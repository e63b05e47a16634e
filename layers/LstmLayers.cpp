// "lstmemory" (an LSTM with peepholes over whole sequences) and "lstm_step" (one step
// inside a recurrent_group); both run LstmCell, so they compute the same thing.
#include <cstring>

#include "engine/math/Device.h"
#include "layers/RecurrentLayers.h"

namespace paddle {

namespace {
using namespace rnn;

// The kernels of the cells, one index per (row, unit) through forEachUnit: the CPU splits
// the rows (the batch's sequences) across the thread pool and vectorises along the units.
// Their pointers are never null (absent states and peepholes read zeros) and never
// overlap, which __restrict tells the compiler for their other loops; they stay out of
// line because GCC forgets __restrict when it inlines a function.

// LSTM forward (see LstmCell::forward), in two passes: the gates that do not
// depend on the new cell, then the output gate and the state. (In one pass the
// chain of activations per unit is long enough to keep the CPU from overlapping
// consecutive units: 1.45x slower.)
template <typename A, typename G, typename S>
[[gnu::noinline]] void lstmForward(A fa, G fg, S fs, bool gpu, size_t rows, size_t n, float* __restrict gates,
                                   const float* __restrict prevCell, const float* __restrict peep,
                                   float* __restrict cell, float* __restrict stateAct, float* __restrict hidden) {
  forEachUnit(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    float* g = gates + i * 4 * n;
    const size_t u = i * n + j;
    const float cp = prevCell[u];
    const float a = fa.fwd(g[j]);
    const float in = fg.fwd(g[n + j] + cp * peep[j]);
    const float f = fg.fwd(g[2 * n + j] + cp * peep[n + j]);
    g[j] = a;
    g[n + j] = in;
    g[2 * n + j] = f;
    cell[u] = a * in + cp * f;
  });
  forEachUnit(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    float* g = gates + i * 4 * n;
    const size_t u = i * n + j;
    const float c = cell[u];
    const float o = fg.fwd(g[3 * n + j] + c * peep[2 * n + j]);
    const float s = fs.fwd(c);
    g[3 * n + j] = o;
    stateAct[u] = s;
    hidden[u] = o * s;
  });
}

// A gate's pre-activation in lstmForwardFromInput: (x + bias) + product, the sums of toBatch and of
// a GEMM with beta 1 (whose C + product is one rounding; the order of a sum of two never matters).
template <bool kProduct>
PD_HD inline float gateInput(const float* g, const float* x, const float* bias, size_t k) {
  const float v = x[k] + bias[k];
  return kProduct ? g[k] + v : v;
}

// lstmForward with the gate pre-activations read where they lie instead of from a batch-order copy:
// row i's are x[xRows[i]] + bias (the layer's input in sequence order), plus row i of `gates`
// where kProduct (the recurrent product, written there by a GEMM with beta 0); the activated
// gates go to `gates`. The hidden state is also written to out[xRows[i]] (the layer's output in
// sequence order). The bits of toBatch (x + bias) then a GEMM with beta 1 (+ product, one
// rounding) then lstmForward then toSequence: the same two sums in each element. CPU only.
template <bool kProduct, typename A, typename G, typename S>
[[gnu::noinline]] void lstmForwardFromInput(A fa, G fg, S fs, size_t rows, size_t n, const float* __restrict x,
                                            const int* __restrict xRows, const float* __restrict bias,
                                            float* __restrict gates, const float* __restrict prevCell,
                                            const float* __restrict peep, float* __restrict cell,
                                            float* __restrict stateAct, float* __restrict hidden,
                                            float* __restrict out) {
  forEachUnit(false, rows, n, [=] PD_HD(size_t i, size_t j) {
    float* g = gates + i * 4 * n;
    const float* xi = x + static_cast<size_t>(xRows[i]) * 4 * n;
    const size_t u = i * n + j;
    const float cp = prevCell[u];
    const float a = fa.fwd(gateInput<kProduct>(g, xi, bias, j));
    const float in = fg.fwd(gateInput<kProduct>(g, xi, bias, n + j) + cp * peep[j]);
    const float f = fg.fwd(gateInput<kProduct>(g, xi, bias, 2 * n + j) + cp * peep[n + j]);
    g[j] = a;
    g[n + j] = in;
    g[2 * n + j] = f;
    cell[u] = a * in + cp * f;
  });
  forEachUnit(false, rows, n, [=] PD_HD(size_t i, size_t j) {
    float* g = gates + i * 4 * n;
    const size_t row = static_cast<size_t>(xRows[i]), u = i * n + j;
    const float c = cell[u];
    const float o = fg.fwd(gateInput<kProduct>(g, x + row * 4 * n, bias, 3 * n + j) + c * peep[2 * n + j]);
    const float s = fs.fwd(c);
    g[3 * n + j] = o;
    stateAct[u] = s;
    const float h = o * s;
    hidden[u] = h;
    out[row * n + j] = h;
  });
}

// How lstmBackward writes the gate grads of row i also to row inRows[i] of the input's gradient
// (sequence order): not at all, set to 0 + them (the bits of adding them to a cleared one), or added.
enum InputGrad { kNoInputGrad = 0, kSetInputGrad = 1, kAddInputGrad = 2 };

// LSTM backward (see LstmCell::backward); kSetPrev: prevCellGrad is set to 0 + its terms, the
// bits of adding them to a cleared one, without reading it.
template <bool kSetPrev, int kInputGrad, typename A, typename G, typename S>
[[gnu::noinline]] void lstmBackward(A fa, G fg, S fs, bool gpu, size_t rows, size_t n,
                                    const float* __restrict gates, const float* __restrict prevCell,
                                    const float* __restrict cell, const float* __restrict stateAct,
                                    const float* __restrict hiddenGrad, float* __restrict cellGrad,
                                    float* __restrict gateGrad, float* __restrict prevCellGrad,
                                    const float* __restrict peep, float* __restrict peepGrad, bool sumPeepholes,
                                    float* __restrict inGrad, const int* __restrict inRows) {
  forEachUnit(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    const float* g = gates + i * 4 * n;
    float* dg = gateGrad + i * 4 * n;
    const size_t u = i * n + j;
    const float cp = prevCell[u];
    const float a = g[j], in = g[n + j], f = g[2 * n + j], o = g[3 * n + j];
    const float s = stateAct[u], dh = hiddenGrad[u];
    const float dO = dh * s * fg.bwd(o, 0.0f);
    const float dS = dh * o * fs.bwd(s, 0.0f);
    const float dc = cellGrad[u] + (dS + dO * peep[2 * n + j]);
    cellGrad[u] = dc;
    const float dI = dc * a * fg.bwd(in, 0.0f);
    const float dF = dc * cp * fg.bwd(f, 0.0f);
    const float dA = dc * in * fa.bwd(a, 0.0f);
    dg[j] = dA;
    dg[n + j] = dI;
    dg[2 * n + j] = dF;
    dg[3 * n + j] = dO;
    if (kInputGrad != kNoInputGrad) {
      float* dx = inGrad + static_cast<size_t>(inRows[i]) * 4 * n;
      const bool set = kInputGrad == kSetInputGrad;
      dx[j] = (set ? 0.0f : dx[j]) + dA;
      dx[n + j] = (set ? 0.0f : dx[n + j]) + dI;
      dx[2 * n + j] = (set ? 0.0f : dx[2 * n + j]) + dF;
      dx[3 * n + j] = (set ? 0.0f : dx[3 * n + j]) + dO;
    }
    prevCellGrad[u] = (kSetPrev ? 0.0f : prevCellGrad[u]) + (dc * f + dI * peep[j] + dF * peep[n + j]);
  });
  if (!sumPeepholes) return;
  // The peephole grads, shared by all rows: one index per unit sums its rows in order.
  forEachParallel(gpu, n, [=] PD_HD(size_t j) {
    float pi = peepGrad[j], pf = peepGrad[n + j], po = peepGrad[2 * n + j];
    for (size_t i = 0; i < rows; ++i) {
      const float* dg = gateGrad + i * 4 * n;
      const size_t u = i * n + j;
      pi += dg[n + j] * prevCell[u];
      pf += dg[2 * n + j] * prevCell[u];
      po += dg[3 * n + j] * cell[u];
    }
    peepGrad[j] = pi;
    peepGrad[n + j] = pf;
    peepGrad[2 * n + j] = po;
  }, kCellGrain / (rows + 1) + 1);
}

// Asks the CPU to fetch rows[i] of m (rows of `width` floats) for i < n into its L2 cache: the
// sequence-order rows that the cell reads after the step's product (which runs meanwhile), whose
// scattered addresses the hardware prefetchers do not foresee.
inline void prefetchRows(const float* m, const int* rows, size_t n, size_t width, bool forWriting) {
  for (size_t i = 0; i < n; ++i) {
    const char* row = reinterpret_cast<const char*>(m + static_cast<size_t>(rows[i]) * width);
    for (size_t k = 0; k < width * sizeof(float); k += 64) {
      if (forWriting) {
        __builtin_prefetch(row + k, 1, 2);
      } else {
        __builtin_prefetch(row + k, 0, 2);
      }
    }
  }
}

// db[g * n + j] += the rows' dg[g * n + j] for the 4 gates g and units j in [j0, j1), row after row
// (dg: rows of 4n): the order of each column's sum in math::sumRows.
[[gnu::noinline]] void addBiasRows(size_t j0, size_t j1, size_t n, size_t rows, const float* __restrict dg,
                                   float* __restrict db) {
  for (size_t i = 0; i < rows; ++i) {
    const float* __restrict x = dg + i * 4 * n;
    for (size_t g = 0; g < 4; ++g) {
      for (size_t j = j0; j < j1; ++j) db[g * n + j] += x[g * n + j];
    }
  }
}

// One row's terms of the peephole grads pi, pf, po (I, F, O), units [j0, j1): dg the row's 4n
// gate grads, prevCell its previous cell (null: zeros, multiplied all the same, as
// lstmBackward multiplies the zeros it is given), cell its cell.
[[gnu::noinline]] void addPeepholeRow(size_t j0, size_t j1, size_t n, const float* __restrict dg,
                                      const float* __restrict prevCell, const float* __restrict cell,
                                      float* __restrict pi, float* __restrict pf, float* __restrict po) {
  if (prevCell) {
    for (size_t j = j0; j < j1; ++j) {
      pi[j] += dg[n + j] * prevCell[j];
      pf[j] += dg[2 * n + j] * prevCell[j];
      po[j] += dg[3 * n + j] * cell[j];
    }
  } else {
    for (size_t j = j0; j < j1; ++j) {
      pi[j] += dg[n + j] * 0.0f;
      pf[j] += dg[2 * n + j] * 0.0f;
      po[j] += dg[3 * n + j] * cell[j];
    }
  }
}

// The LSTM cell (v1 gate order: candidate, input, forget, output gate) over
// rows x H units on the layer's device. Row i of `gates` holds its 4H
// pre-activations, activated in place; prevCell is the previous cell (null:
// zeros, at the first step); writes the cell c, stateAct = state_act(c) and
// hidden. peep: the 3H peepholes I, F, O (null: none).
class LstmCell {
 public:
  LstmCell() = default;
  LstmCell(act::Kind act, act::Kind gate, act::Kind state, size_t H, bool gpu)
      : act_(act), gate_(gate), state_(state), H_(H), gpu_(gpu) {
    placeholders_.setDevice(gpu);
  }

  void forward(size_t rows, float* gates, const float* prevCell, const float* peep, float* cell, float* stateAct,
               float* hidden) {
    zerosForAbsent(rows, prevCell, peep);
    withActs(act_, gate_, state_, [&](auto fa, auto fg, auto fs) {
      lstmForward(fa, fg, fs, gpu_, rows, H_, gates, prevCell, peep, cell, stateAct, hidden);
    });
  }

  // forward with the pre-activations of row i read from x's row xRows[i] (4H wide, sequence order)
  // plus bias (4H), plus row i of `gates` where `product` (the recurrent product); also writes
  // hidden to out's row xRows[i] (H wide). CPU only.
  void forwardFromInput(size_t rows, bool product, const float* x, const int* xRows, const float* bias,
                        float* gates, const float* prevCell, const float* peep, float* cell, float* stateAct,
                        float* hidden, float* out) {
    zerosForAbsent(rows, prevCell, peep);
    withActs(act_, gate_, state_, [&](auto fa, auto fg, auto fs) {
      auto run = [&](auto kernel) {
        kernel(fa, fg, fs, rows, H_, x, xRows, bias, gates, prevCell, peep, cell, stateAct, hidden, out);
      };
      if (product) {
        run(lstmForwardFromInput<true, decltype(fa), decltype(fg), decltype(fs)>);
      } else {
        run(lstmForwardFromInput<false, decltype(fa), decltype(fg), decltype(fs)>);
      }
    });
  }

  // hiddenGrad: gradient of h; cellGrad: gradient of c so far (from later steps),
  // completed here. Writes gateGrad (4H pre-activation grads per row), adds into
  // prevCellGrad and the peephole grads peepGrad (3H) unless they are null. Without
  // sumPeepholes the peephole grads are left to the caller (addPeepholeGrads) and
  // prevCellGrad must not be null: then concurrent calls (a reserve()d cell, disjoint rows)
  // share no memory they write. setPrevCellGrad: prevCellGrad is set (as if added to zeros), not read.
  // inGrad (CPU only, with setPrevCellGrad): the gate grads of row i also go to inGrad's row inRows[i]
  // (4H wide), set (as if added to zeros) where setInGrad, else added.
  void backward(size_t rows, const float* gates, const float* prevCell, const float* cell, const float* stateAct,
                const float* hiddenGrad, float* cellGrad, float* gateGrad, float* prevCellGrad, const float* peep,
                float* peepGrad, bool sumPeepholes = true, bool setPrevCellGrad = false, float* inGrad = nullptr,
                const int* inRows = nullptr, bool setInGrad = false) {
    zerosForAbsent(rows, prevCell, peep);
    if (sumPeepholes && (!prevCellGrad || !peepGrad)) {
      float* sink = placeholders_.sink((prevCellGrad ? 0 : rows * H_) + (peepGrad ? 0 : 3 * H_));
      if (!prevCellGrad) {
        prevCellGrad = sink;
        sink += rows * H_;
      }
      if (!peepGrad) peepGrad = sink;
    }
    withActs(act_, gate_, state_, [&](auto fa, auto fg, auto fs) {
      auto run = [&](auto body) {
        body(fa, fg, fs, gpu_, rows, H_, gates, prevCell, cell, stateAct, hiddenGrad, cellGrad, gateGrad,
             prevCellGrad, peep, peepGrad, sumPeepholes, inGrad, inRows);
      };
      using FA = decltype(fa);
      using FG = decltype(fg);
      using FS = decltype(fs);
      if (!setPrevCellGrad) {
        run(lstmBackward<false, kNoInputGrad, FA, FG, FS>);
      } else if (!inGrad) {
        run(lstmBackward<true, kNoInputGrad, FA, FG, FS>);
      } else if (setInGrad) {
        run(lstmBackward<true, kSetInputGrad, FA, FG, FS>);
      } else {
        run(lstmBackward<true, kAddInputGrad, FA, FG, FS>);
      }
    });
  }

  // Sizes the zeros for steps of up to `rows` rows, so that concurrent calls only read them.
  void reserve(size_t rows) {
    const float *prevCell = nullptr, *peep = nullptr;
    zerosForAbsent(rows, prevCell, peep);
  }

 private:
  // One buffer of zeros for an absent previous cell and absent peepholes.
  void zerosForAbsent(size_t rows, const float*& prevCell, const float*& peep) {
    const float* zeros = placeholders_.zeros(std::max<size_t>(rows, 3) * H_);
    if (!prevCell) prevCell = zeros;
    if (!peep) peep = zeros;
  }

  act::Kind act_ = act::kTanh, gate_ = act::kSigmoid, state_ = act::kTanh;
  size_t H_ = 0;
  bool gpu_ = false;
  Placeholders placeholders_;
};
}  // namespace

// "lstmemory": input [T, 4H] = (candidate, input gate, forget gate, output gate)
// pre-activations; weight [H, 4H]; bias 7H = 4H gate bias + peepholes I, F, O.
class LstmLayer : public BatchRecurrentLayer, public InputGradientSetter {
 public:
  using BatchRecurrentLayer::BatchRecurrentLayer;

  void init(LayerContext& ctx) override {
    H_ = static_cast<size_t>(config_.getInt("size"));
    initRecurrent(ctx, 4 * H_, 4 * H_ * H_, 7 * H_);
    cell_ = LstmCell(actKind_, elementwiseKind(config_.getString("active_gate_type"), "active_gate_type"),
                     elementwiseKind(config_.getString("active_state_type"), "active_state_type"), H_,
                     useGpu_);
    onDevice({&cells_, &states_, &hidden_, &cellGrad_, &gateGrad_});
  }

  void forward(PassType pass) override {
    const size_t H = H_;
    buildSchedule(pass);
    Matrix W = view(weight(0)->value(), 0, H, 4 * H);
    if (batch_.numSteps() > 1) recurrentWeight_.set(W, false);  // packed once for all the steps
    const Argument& in = input(0);
    const size_t T = in.value.height();
    // in place of a reordering pass over the [T, 4H] input, the cell reads its rows where they lie
    const bool fromInput = readsInputInCell();
    if (fromInput) {
      gates_.resize(T, 4 * H);
      resetOutput(T, H);
    } else {
      reorderInput(gates_);
    }
    const int* seqRows = batch_.sequenceRows();
    cells_.resize(T, H);
    states_.resize(T, H);
    hidden_.resize(T, H);
    const float* peep = bias_ ? bias_->value().data() + 4 * H : nullptr;
    const size_t groups = sequenceGroupCount(sequenceGroups());
    if (groups > 1) cell_.reserve(batch_.stepRows(0));
    forEachSequenceGroup(groups, [&](size_t a, size_t b) {
      for (size_t t = 0; t < batch_.numSteps() && batch_.stepRows(t) > a; ++t) {
        const size_t b0 = batch_.stepBegin(t) + a, r = std::min(batch_.stepRows(t), b) - a;
        if (fromInput) {
          prefetchRows(in.value.data(), seqRows + b0, r, 4 * H, false);
          prefetchRows(output_.value.data(), seqRows + b0, r, H, true);
        }
        if (t > 0) {
          Matrix g = gates_.rows(b0, b0 + r);
          const size_t p0 = prevBegin(t) + a;
          math::gemm(hidden_.rows(p0, p0 + r), recurrentWeight_, g, 1.0f, fromInput ? 0.0f : 1.0f);
        }
        const float* prevCell = t > 0 ? cells_.row(prevBegin(t) + a) : nullptr;
        if (fromInput) {
          cell_.forwardFromInput(r, t > 0, in.value.data(), seqRows + b0, bias_->value().data(), gates_.row(b0),
                                 prevCell, peep, cells_.row(b0), states_.row(b0), hidden_.row(b0),
                                 output_.value.data());
        } else {
          cell_.forward(r, gates_.row(b0), prevCell, peep, cells_.row(b0), states_.row(b0), hidden_.row(b0));
        }
      }
    });
    if (fromInput) {
      finishOutput();
    } else {
      finishForward(hidden_);
    }
  }

  void backward() override {
    const size_t H = H_;
    startBackward(hiddenGrad_);
    const size_t T = gates_.height();
    gateGrad_.resize(T, 4 * H);
    cellGrad_.resize(T, H);
    Matrix W = view(weight(0)->value(), 0, H, 4 * H);
    const float* peep = bias_ ? bias_->value().data() + 4 * H : nullptr;
    float* peepGrad = biasTrainable() ? bias_->grad().data() + 4 * H : nullptr;
    if (batch_.numSteps() > 1) recurrentWeight_.set(W, true);
    if (!sequenceGroups()) cellGrad_.zero();  // (the groups clear their own rows)
    Argument& in = input(0);
    Matrix db = biasTrainable() ? view(bias_->grad(), 0, 1, 4 * H) : Matrix();
    // by groups, the cell also writes the input's gradient rows in sequence order and the bias
    // gradient is summed with the peepholes' (the bits of the reordering pass below, without it)
    const bool fuseGrads = sequenceGroups() && !switchedOffInEnvironment("PADDLE_FUSE_LSTM_INPUT");
    float* inGrad = fuseGrads && !in.grad.empty() ? in.grad.data() : nullptr;
    const int* seqRows = batch_.sequenceRows();
    if (sequenceGroups()) {
      // the groups must not share the cell's sink: the first step's previous-cell gradient
      // goes to rows of a scratch matrix, and the peephole grads are summed afterwards
      firstPrevCellGrad_.resize(batch_.stepRows(0), H);
      firstPrevCellGrad_.zero();
      const size_t groups = sequenceGroupCount(true);
      if (groups > 1) cell_.reserve(batch_.stepRows(0));
      forEachSequenceGroup(groups, [&](size_t a, size_t b) {
        // the cell gradient of a row that goes on at step t + 1 is set there (setPrevCellGrad):
        // only the rows of sequences that end at step t start from zeros
        const size_t steps = batch_.numSteps();
        for (size_t t = 0; t < steps && batch_.stepRows(t) > a; ++t) {
          const size_t end = std::min(batch_.stepRows(t), b);
          const size_t goesOn = t + 1 < steps ? std::max(a, std::min(batch_.stepRows(t + 1), b)) : a;
          std::memset(cellGrad_.row(batch_.stepBegin(t) + goesOn), 0, (end - goesOn) * H * sizeof(float));
        }
        for (size_t t = batch_.numSteps(); t-- > 0;) {
          if (batch_.stepRows(t) <= a) continue;
          const size_t b0 = batch_.stepBegin(t) + a, r = std::min(batch_.stepRows(t), b) - a;
          const size_t p0 = t > 0 ? prevBegin(t) + a : 0;
          cell_.backward(r, gates_.row(b0), t > 0 ? cells_.row(p0) : nullptr, cells_.row(b0), states_.row(b0),
                         hiddenGrad_.row(b0), cellGrad_.row(b0), gateGrad_.row(b0),
                         t > 0 ? cellGrad_.row(p0) : firstPrevCellGrad_.row(a), peep, nullptr, false, true,
                         inGrad, seqRows + b0, setsInputGrad(0));
          if (t > 0) {
            // the previous step's input-gradient rows, fetched while the product runs
            if (inGrad) prefetchRows(inGrad, seqRows + p0, std::min(batch_.stepRows(t - 1), b) - a, 4 * H, true);
            Matrix dgt = gateGrad_.rows(b0, b0 + r);
            Matrix dhPrev = hiddenGrad_.rows(p0, p0 + r);
            math::gemm(dgt, recurrentWeight_, dhPrev, 1.0f, 1.0f);
          }
        }
      });
      if (peepGrad) addPeepholeGrads(peepGrad, fuseGrads ? db.data() : nullptr);
    } else {
      for (size_t t = batch_.numSteps(); t-- > 0;) {
        const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
        cell_.backward(r, gates_.row(b0), t > 0 ? cells_.row(prevBegin(t)) : nullptr, cells_.row(b0),
                       states_.row(b0), hiddenGrad_.row(b0), cellGrad_.row(b0), gateGrad_.row(b0),
                       t > 0 ? cellGrad_.row(prevBegin(t)) : nullptr, peep, peepGrad);
        if (t > 0) {
          const size_t p0 = prevBegin(t);
          Matrix dgt = gateGrad_.rows(b0, b0 + r);
          Matrix dhPrev = hiddenGrad_.rows(p0, p0 + r);
          math::gemm(dgt, recurrentWeight_, dhPrev, 1.0f, 1.0f);
        }
      }
    }
    if (weightTrainable() && batch_.numSteps() > 1) {
      Matrix dW = view(weight(0)->grad(), 0, H, 4 * H);
      recurrentWeightGradient(hidden_, gateGrad_, dW);
    }
    if (fuseGrads) return;
    if (biasTrainable() && !in.grad.empty()) {  // one pass over the gate gradients
      batch_.toSequenceSummingRows(gateGrad_, in.grad, db, setsInputGrad(0));
    } else if (biasTrainable()) {
      math::sumRows(gateGrad_, db);
    } else if (!in.grad.empty()) {
      if (setsInputGrad(0)) math::zero(in.grad);
      batch_.toSequence(gateGrad_, in.grad, true);
    }
  }

  // Every input row's gradient comes from one gate-gradient row: set, the input (lstm_transform's
  // mixed layer, [T, 4H]) skips clearing its gradient and the pass above reads it no more.
  bool canSetInputGradient(bool relu) const override { return !relu; }

  void releaseForwardState() override {
    releaseBuffers({&gates_, &cells_, &states_, &hidden_, &hiddenGrad_, &cellGrad_, &gateGrad_});
  }

 private:
  // Whether the forward's cell reads the gate pre-activations from the input in sequence order
  // (with the bias) and writes the output there, instead of passes that reorder them: on the CPU
  // with a bias, where the recurrent product's GEMM may leave adding C to the cell (one step, or
  // math::addsProductOnce). PADDLE_FUSE_LSTM_INPUT=0 turns it off (the other path's bits are the same).
  bool readsInputInCell() const {
    return !useGpu_ && bias_ && !switchedOffInEnvironment("PADDLE_FUSE_LSTM_INPUT") &&
           (batch_.numSteps() <= 1 || math::addsProductOnce(recurrentWeight_, H_));
  }

  // Whether the steps may run by groups of sequences (forEachSequenceGroup): only where the
  // bits cannot depend on the grouping, CPU products through a packed bf16 weight (an
  // OpenBLAS product's order of sums may change with its number of rows).
  bool sequenceGroups() const { return !useGpu_ && recurrentWeight_.packed() && batch_.numSteps() > 1; }

  // The peephole grads of the backward by groups: one index per unit sums the steps from the
  // last and each step's rows in order, as LstmCell::backward does step by step (the same bits).
  // With biasGrad (the 4H gate biases' grads), each block of units then sums the gate grads of those
  // units over the rows in order into it, as math::sumRows does (the same bits), while the first
  // rows, the peepholes' last, are still in the cache.
  void addPeepholeGrads(float* peepGrad, float* biasGrad) {
    const size_t n = H_, steps = batch_.numSteps();
    const float* dgAll = gateGrad_.data();
    const float* cellAll = cells_.data();
    const SequenceToBatch& batch = batch_;
    // threads take blocks of units; each unit's sums run in that order, row by row along the
    // block (vectorised) rather than unit by unit down the rows
    parallelFor(n, kCellGrain / (batch_.numSequences() + 1) + 1, [=, &batch](size_t j0, size_t j1) {
      for (size_t t = steps; t-- > 0;) {
        const size_t b0 = batch.stepBegin(t), rows = batch.stepRows(t);
        const float* prevCell = t > 0 ? cellAll + batch.stepBegin(t - 1) * n : nullptr;
        for (size_t i = 0; i < rows; ++i) {
          addPeepholeRow(j0, j1, n, dgAll + (b0 + i) * 4 * n, prevCell ? prevCell + i * n : nullptr,
                         cellAll + (b0 + i) * n, peepGrad, peepGrad + n, peepGrad + 2 * n);
        }
      }
      if (biasGrad) addBiasRows(j0, j1, n, batch.stepEnd(steps - 1), dgAll, biasGrad);
    });
  }

  size_t H_ = 0;
  LstmCell cell_;
  Matrix gates_, cells_, states_, hidden_;  // batch order
  Matrix hiddenGrad_, cellGrad_, gateGrad_;
  math::ReusedOperand recurrentWeight_;  // W in the forward, W^T in the backward
  Matrix firstPrevCellGrad_;               // the groups' sink for the first step's previous cell
};

// "lstm_step": one LSTM step inside a recurrent_group. Inputs: the 4H gate
// pre-activations (x and h_{t-1} projections summed by a mixed layer) and the
// previous cell; bias = the 3H peepholes. Output h; secondary output "state" = c.
class LstmStepLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(2, 2);
    H_ = size_;
    PADDLE_ENFORCE(H_ > 0, ConfigError, "needs a positive size");
    checkInputSize(0, 4 * H_);
    checkInputSize(1, H_);
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == 3 * H_, ConfigError, "bias '", bias_->name(), "' has ", bias_->size(),
                     " values, expected ", 3 * H_, " (peepholes)");
    }
    cell_ = LstmCell(elementwiseKind(config_.getString("active_type"), "active_type"),
                     elementwiseKind(config_.getString("active_gate_type"), "active_gate_type"),
                     elementwiseKind(config_.getString("active_state_type"), "active_state_type"), H_,
                     useGpu_);
    activation_.reset(new Activation(""));  // applied inside the cell
    for (Matrix* m : {&gates_, &states_, &gateGrad_, &state_.value, &state_.grad}) m->setDevice(useGpu_);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.value.height();
    PADDLE_ENFORCE(input(1).value.height() == rows, DataError, "state input '", inputLayers()[1]->name(), "' has ",
                   input(1).value.height(), " rows, expected ", rows);
    gates_.copyFrom(in.value);
    resetOutput(rows, H_);
    state_.value.resize(rows, H_);
    states_.resize(rows, H_);
    if (pass == PASS_TRAIN || pass == PASS_GC) {
      state_.grad.resize(rows, H_);
      state_.grad.zero();
    }
    cell_.forward(rows, gates_.data(), input(1).value.data(), peepholes(), state_.value.data(),
                  states_.data(), output_.value.data());
    output_.seqStarts = state_.seqStarts = in.seqStarts;
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    const size_t rows = gates_.height();
    gateGrad_.resize(rows, 4 * H_);
    Argument& prev = input(1);
    float* peepGrad = bias_ && !bias_->isStatic() ? bias_->grad().data() : nullptr;
    cell_.backward(rows, gates_.data(), prev.value.data(), state_.value.data(), states_.data(),
                   output_.grad.data(), state_.grad.data(), gateGrad_.data(),
                   prev.grad.empty() ? nullptr : prev.grad.data(), peepholes(), peepGrad);
    Argument& in = input(0);
    if (!in.grad.empty()) math::axpby(1.0f, gateGrad_, 1.0f, in.grad);
  }

  void releaseForwardState() override {
    Layer::releaseForwardState();
    emptyBuffers({&gates_, &states_, &gateGrad_});
  }

 private:
  const float* peepholes() const { return bias_ ? bias_->value().data() : nullptr; }
  size_t H_ = 0;
  LstmCell cell_;
  Argument& state_ = publishOutput("state");  // the cell c
  Matrix gates_, states_, gateGrad_;
};

REGISTER_LAYER("lstmemory", LstmLayer);
REGISTER_LAYER("lstm_step", LstmStepLayer);

}  // namespace paddle
