// Local costs behind every broadcast, without communication: building a rank's program (per
// step) and finding it in the cache. The architecture asks for well under a microsecond per
// step; these show what building and lookup cost.
#include <benchmark/benchmark.h>

#include "coll/registry.hpp"
#include "schedule/cache.hpp"

namespace {

void build(benchmark::State& state, const char* name) {
  const auto* algorithm = relay::coll::find_algorithm(relay::coll::Collective::bcast, name);
  relay::coll::Shape shape;
  shape.size = 8;
  shape.bytes = 8 << 20;
  shape.segment_bytes = state.range(0);
  std::int64_t steps = 0;
  for (auto _ : state) {
    auto program = algorithm->build(shape, 3);
    steps += static_cast<std::int64_t>(program.steps.size());
    benchmark::DoNotOptimize(program.steps.data());
  }
  state.SetItemsProcessed(steps);  // items = steps: 1e9 / items_per_second is ns per step
}

void BM_BuildPipeline(benchmark::State& state) { build(state, "pipeline"); }
void BM_BuildBinomial(benchmark::State& state) { build(state, "binomial"); }
void BM_BuildScatterAllgather(benchmark::State& state) { build(state, "scatter_allgather"); }
BENCHMARK(BM_BuildPipeline)->Arg(4096)->Arg(65536);
BENCHMARK(BM_BuildBinomial)->Arg(4096)->Arg(65536);
BENCHMARK(BM_BuildScatterAllgather)->Arg(4096)->Arg(65536);

struct Key {
  int a, b;
  bool operator==(const Key& o) const { return a == o.a && b == o.b; }
};

void BM_CacheHit(benchmark::State& state) {
  relay::schedule::ProgramCache<Key> cache(64);
  for (int i = 0; i < 64; ++i) cache.get(Key{i, 0}, [] { return relay::schedule::RankProgram{}; });
  int i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        cache.get(Key{i++ & 63, 0}, [] { return relay::schedule::RankProgram{}; }));
  }
}
BENCHMARK(BM_CacheHit);

}  // namespace

BENCHMARK_MAIN();
