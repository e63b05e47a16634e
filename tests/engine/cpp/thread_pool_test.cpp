// Unit test of engine/math/ThreadPool (built and run by tests/engine/test_threads.py
// against the engine library). Prints "ok" or exits non-zero naming the failed check.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/math/ThreadPool.h"

using namespace paddle;

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      std::fprintf(stderr, "line %d: check failed: %s\n", __LINE__, #cond); \
      std::exit(1);                                                   \
    }                                                                 \
  } while (0)

// Every index once, in chunks [n*i/k, n*(i+1)/k) with k = min(threads, n / grain).
void checkPartition(size_t n, size_t grain) {
  const size_t threads = static_cast<size_t>(cpuThreads());
  size_t expected = n / grain < threads ? n / grain : threads;
  if (expected < 1) expected = 1;
  CHECK(parallelChunks(n, grain) == expected);
  std::vector<std::atomic<int>> hits(n);
  std::vector<std::pair<size_t, size_t>> bounds(expected);
  std::atomic<size_t> calls{0};
  parallelChunks(n, grain, [&](size_t c, size_t b, size_t e) {
    bounds[c] = {b, e};
    for (size_t i = b; i < e; ++i) hits[i]++;
    calls++;
  });
  CHECK(calls == (n ? expected : 0));
  for (size_t i = 0; i < n; ++i) CHECK(hits[i] == 1);
  for (size_t c = 0; c < expected && n; ++c) {
    CHECK(bounds[c].first == n * c / expected);
    CHECK(bounds[c].second == n * (c + 1) / expected);
  }
}

int main(int argc, char** argv) {
  const int want = argc > 1 ? std::atoi(argv[1]) : 0;
  if (want) CHECK(cpuThreads() == want);  // read from the environment
  setCpuThreads(4);
  CHECK(cpuThreads() == 4);
  for (size_t n : {0, 1, 7, 100, 1000, 12345}) {
    for (size_t grain : {1, 3, 100, 5000}) checkPartition(n, grain);
  }

  // Chunks run at the same time: chunk 0 waits for chunk 1 to start (a serial run would hang).
  setCpuThreads(2);
  {
    std::atomic<bool> started{false};
    bool sawOther = false;
    parallelChunks(2, 1, [&](size_t c, size_t, size_t) {
      if (c == 1) {
        started = true;
        return;
      }
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!started && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      sawOther = started;
    });
    CHECK(sawOther);
  }

  // Exceptions: every chunk still runs, the lowest chunk's exception is rethrown, the pool lives on.
  setCpuThreads(3);
  {
    std::atomic<int> ran{0};
    std::string caught;
    try {
      parallelChunks(3, 1, [&](size_t c, size_t, size_t) {
        ran++;
        if (c >= 1) throw std::runtime_error("chunk " + std::to_string(c));
      });
    } catch (const std::runtime_error& e) {
      caught = e.what();
    }
    CHECK(ran == 3);
    CHECK(caught == "chunk 1");
    checkPartition(999, 1);
  }

  // Back to back loops: every chunk of every loop runs exactly once (a worker waking late
  // must not run a chunk of the next loop a second time).
  {
    std::vector<int> hits(64, 0);
    for (int rep = 0; rep < 20000; ++rep) {
      parallelFor(64, 1, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) hits[i]++;
      });
    }
    for (int h : hits) CHECK(h == 20000);
  }

  // Nested loops run serially inside a chunk and do not deadlock.
  {
    std::atomic<size_t> total{0}, innerChunks{0};
    parallelFor(8, 1, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        innerChunks += parallelChunks(1000, 1);
        parallelFor(1000, 1, [&](size_t ib, size_t ie) { total += ie - ib; });
      }
    });
    CHECK(total == 8000);
    CHECK(innerChunks == 8);
  }

  // Concurrent callers: one holds the pool, the other runs its loop itself; both complete.
  {
    std::vector<std::thread> callers;
    std::atomic<size_t> total{0};
    for (int t = 0; t < 3; ++t) {
      callers.emplace_back([&] {
        for (int rep = 0; rep < 200; ++rep) parallelFor(300, 1, [&](size_t b, size_t e) { total += e - b; });
      });
    }
    for (auto& th : callers) th.join();
    CHECK(total == 3u * 200u * 300u);
  }

  // A SerialScope keeps its thread's loops in one chunk.
  {
    SerialScope serial;
    CHECK(parallelChunks(100000, 1) == 1);
  }
  CHECK(parallelChunks(100000, 1) == 3);

  // One thread: never splits.
  setCpuThreads(1);
  CHECK(parallelChunks(100000, 1) == 1);
  bool threw = false;
  try {
    setCpuThreads(0);
  } catch (const std::exception&) {
    threw = true;
  }
  CHECK(threw);
  std::printf("ok\n");
  return 0;
}
