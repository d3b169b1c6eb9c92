// A kernel tracer to preload into any CUDA program, for machines without nsys:
//   LD_PRELOAD=build/tools/libtt_kernel_trace.so TT_KERNEL_TRACE=trace.csv ./program ...
// It records every kernel, memcpy and memset the program runs (CUPTI's activity API: GPU
// start and end timestamps, stream, grid) and, at exit, writes them to TT_KERNEL_TRACE as
// CSV (start_ns,end_ns,stream,kind,grid,block,name) and prints a summary per name to stderr:
// count, mean and total GPU time. Comparing two runs' summaries tells whether they ran the
// same kernels for the same time; the CSV tells where the GPU sat idle between them.
#include <cupti.h>
#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

struct Record {
  uint64_t start = 0, end = 0;
  uint32_t stream = 0;
  const char* kind = "";
  std::string grid, block, name;
};

std::vector<Record>& records() {
  static std::vector<Record> r;
  return r;
}

std::string demangled(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string s = status == 0 && d != nullptr ? d : name;
  std::free(d);
  for (char& c : s)
    if (c == ',') c = ';';  // the CSV's separator
  return s;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* a = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) {
    Record r;
    if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(a);
      r = {k->start,
           k->end,
           k->streamId,
           "kernel",
           std::to_string(k->gridX) + "x" + std::to_string(k->gridY) + "x" +
               std::to_string(k->gridZ),
           std::to_string(k->blockX) + "x" + std::to_string(k->blockY),
           demangled(k->name)};
    } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
      r = {m->start, m->end, m->streamId, "memcpy", "", "", std::to_string(m->bytes) + " bytes"};
    } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(a);
      r = {m->start, m->end, m->streamId, "memset", "", "", std::to_string(m->bytes) + " bytes"};
    } else {
      continue;
    }
    records().push_back(std::move(r));
  }
  std::free(buffer);
}

struct Tracer {
  Tracer() {
    cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  }
  ~Tracer() {
    cuptiActivityFlushAll(1);
    if (const char* path = std::getenv("TT_KERNEL_TRACE")) {
      if (FILE* f = std::fopen(path, "w")) {
        std::fprintf(f, "start_ns,end_ns,stream,kind,grid,block,name\n");
        for (const Record& r : records())
          std::fprintf(f, "%llu,%llu,%u,%s,%s,%s,%s\n", static_cast<unsigned long long>(r.start),
                       static_cast<unsigned long long>(r.end), r.stream, r.kind, r.grid.c_str(),
                       r.block.c_str(), r.name.c_str());
        std::fclose(f);
      }
    }
    struct Sum {
      long count = 0;
      double total_us = 0;
    };
    std::map<std::string, Sum> by_name;
    for (const Record& r : records()) {
      Sum& s = by_name[r.name.substr(0, 110) + " <" + r.grid + ">"];
      ++s.count;
      s.total_us += static_cast<double>(r.end - r.start) / 1e3;
    }
    for (const auto& [name, s] : by_name)
      std::fprintf(stderr, "trace %6ld x %9.2f us = %10.1f us  %s\n", s.count, s.total_us / s.count,
                   s.total_us, name.c_str());
  }
};

const Tracer tracer;

}  // namespace
