// The CUDA runtime layer: device discovery, the caching allocator (its bookkeeping
// against a fake driver, which runs everywhere, and the real one on a GPU), status
// checks, copies, strided copies and the Philox fills that must match the CPU bit
// for bit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include "core/tensor.h"
#include "support/test_util.h"

#if TT_CUDA
#include "core/cuda/allocator.h"
#include "core/cuda/check.h"
#include "core/cuda/device.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#endif

using ::testing::HasSubstr;
using ::testing::StartsWith;
using tt::Device;
using tt::DType;
using tt::Shape;
using tt::Tensor;

namespace {

using tt::test::error_of;

}  // namespace

TEST(CudaRuntime, DeviceCountIsNeverNegative) {
#if TT_CUDA
  const int count = tt::cuda::device_count();
  EXPECT_GE(count, 0);
  EXPECT_EQ(tt::cuda::is_available(), count > 0);
  EXPECT_EQ(tt::test::cuda_available(), count > 0);
#else
  EXPECT_FALSE(tt::test::cuda_available());
#endif
}

TEST(CudaRuntime, WithoutCudaTensorsOnTheGpuAreAClearError) {
  if (tt::test::cuda_available()) GTEST_SKIP() << "a CUDA device is present";
#if TT_CUDA
  EXPECT_EQ(error_of([] { Tensor::zeros({2}, DType::F32, Device::cuda(0)); }),
            "CUDA device cuda:0 was requested but this machine has no usable CUDA device.");
#else
  EXPECT_THAT(error_of([] { Tensor::zeros({2}, DType::F32, Device::cuda(0)); }),
              HasSubstr("built without CUDA"));
#endif
}

#if TT_CUDA

// ------------------------------------------------ helpers and status checks

namespace {

Tensor arange(int64_t n, const Shape& shape) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return Tensor::from_vector(v, shape);
}

// The raw bits of every element, to compare float tensors exactly (NaN included).
std::vector<uint32_t> bits_of(const Tensor& t) {
  std::vector<float> v = t.to_vector<float>();
  std::vector<uint32_t> bits(v.size());
  if (!v.empty()) std::memcpy(bits.data(), v.data(), v.size() * sizeof(float));
  return bits;
}

cudaError_t failing_cuda_call(cudaError_t status) { return status; }
cublasStatus_t failing_cublas_call(cublasStatus_t status) { return status; }

int invalid_value_line = 0;
void check_invalid_value() {
  invalid_value_line = __LINE__ + 1;
  TT_CUDA_CHECK(failing_cuda_call(cudaErrorInvalidValue));
}
}  // namespace

TEST(CudaCheck, NamesTheCallTheErrorAndTheLocation) {
  std::string message = error_of(check_invalid_value);
  EXPECT_EQ(message, fmt::format("CUDA call failing_cuda_call(cudaErrorInvalidValue) failed with "
                                 "cudaErrorInvalidValue (invalid argument) at "
                                 "tests/cuda_runtime_test.cpp:{}.",
                                 invalid_value_line));
}

TEST(CudaCheck, CublasStatusIsNamed) {
  std::string message =
      error_of([] { TT_CUBLAS_CHECK(failing_cublas_call(CUBLAS_STATUS_INVALID_VALUE)); });
  EXPECT_THAT(message, StartsWith("cuBLAS call failing_cublas_call(CUBLAS_STATUS_INVALID_VALUE) "
                                  "failed with CUBLAS_STATUS_INVALID_VALUE ("));
  EXPECT_THAT(message, HasSubstr(") at tests/cuda_runtime_test.cpp:"));
}

TEST(CudaCheck, SuccessDoesNotThrow) {
  EXPECT_NO_THROW(TT_CUDA_CHECK(failing_cuda_call(cudaSuccess)));
  EXPECT_NO_THROW(TT_CUBLAS_CHECK(failing_cublas_call(CUBLAS_STATUS_SUCCESS)));
}

// ------------------------------------------- caching allocator, fake driver

namespace {

// A driver with a fixed capacity that hands out fake, distinct addresses and
// records what it was asked.
class FakeDeviceMemory : public tt::cuda::DeviceMemory {
 public:
  struct Log {
    size_t used = 0;
    int mallocs = 0;
    int frees = 0;
    int failed_mallocs = 0;
  };
  FakeDeviceMemory(size_t capacity, Log* log) : capacity_(capacity), log_(log) {}

  void* malloc(size_t nbytes) override {
    if (log_->used + nbytes > capacity_) {
      ++log_->failed_mallocs;
      return nullptr;
    }
    log_->used += nbytes;
    ++log_->mallocs;
    next_ += nbytes + 4096;
    sizes_[next_] = nbytes;
    return reinterpret_cast<void*>(next_);
  }
  void free(void* ptr) override {
    auto it = sizes_.find(reinterpret_cast<uintptr_t>(ptr));
    ASSERT_NE(it, sizes_.end()) << "freed a block the fake driver never gave out";
    log_->used -= it->second;
    sizes_.erase(it);
    ++log_->frees;
  }
  void mem_info(size_t* free_bytes, size_t* total_bytes) override {
    *free_bytes = capacity_ - log_->used;
    *total_bytes = capacity_;
  }

 private:
  size_t capacity_;
  Log* log_;
  uintptr_t next_ = 0x10000;
  std::map<uintptr_t, size_t> sizes_;
};

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kGiB = size_t{1} << 30;

}  // namespace

TEST(CachingAllocator, SizeClassesRoundTo512BytesAndAbove1MiBTo2MiB) {
  using tt::cuda::CachingAllocator;
  EXPECT_EQ(CachingAllocator::size_class(1), 512u);
  EXPECT_EQ(CachingAllocator::size_class(512), 512u);
  EXPECT_EQ(CachingAllocator::size_class(513), 1024u);
  EXPECT_EQ(CachingAllocator::size_class(kMiB), kMiB);
  EXPECT_EQ(CachingAllocator::size_class(kMiB + 1), 2 * kMiB);
  EXPECT_EQ(CachingAllocator::size_class(2 * kMiB + 1), 4 * kMiB);
}

TEST(CachingAllocator, FreedBlockIsReusedForTheSameSizeClass) {
  FakeDeviceMemory::Log log;
  tt::cuda::CachingAllocator alloc(0, std::make_unique<FakeDeviceMemory>(kGiB, &log));
  void* a = alloc.allocate(1000);
  EXPECT_EQ(alloc.stats().bytes_in_use, 1024u);
  alloc.release(a);
  EXPECT_EQ(alloc.stats().bytes_in_use, 0u);
  EXPECT_EQ(alloc.stats().bytes_reserved, 1024u);
  void* b = alloc.allocate(700);  // same 1024-byte class
  EXPECT_EQ(b, a);
  void* c = alloc.allocate(2000);  // another class: a new block
  EXPECT_NE(c, a);
  const tt::cuda::MemoryStats s = alloc.stats();
  EXPECT_EQ(s.num_allocs, 3u);
  EXPECT_EQ(s.num_cache_hits, 1u);
  EXPECT_EQ(s.bytes_in_use, 1024u + 2048u);
  EXPECT_EQ(s.bytes_reserved, 1024u + 2048u);
  EXPECT_EQ(log.mallocs, 2);
  alloc.release(b);
  alloc.release(c);
}

TEST(CachingAllocator, ZeroBytesAndNullAreNoOps) {
  FakeDeviceMemory::Log log;
  tt::cuda::CachingAllocator alloc(0, std::make_unique<FakeDeviceMemory>(kGiB, &log));
  EXPECT_EQ(alloc.allocate(0), nullptr);
  alloc.release(nullptr);
  EXPECT_EQ(alloc.stats().num_allocs, 0u);
  EXPECT_EQ(log.mallocs, 0);
}

TEST(CachingAllocator, EmptyCacheReturnsOnlyFreeBlocks) {
  FakeDeviceMemory::Log log;
  tt::cuda::CachingAllocator alloc(0, std::make_unique<FakeDeviceMemory>(kGiB, &log));
  void* kept = alloc.allocate(3 * kMiB);
  void* freed = alloc.allocate(5 * kMiB);
  alloc.release(freed);
  alloc.empty_cache();
  EXPECT_EQ(log.frees, 1);
  EXPECT_EQ(alloc.stats().bytes_reserved, 4 * kMiB);
  EXPECT_EQ(alloc.stats().bytes_in_use, 4 * kMiB);
  alloc.release(kept);
}

TEST(CachingAllocator, FailedMallocEmptiesTheCacheAndRetries) {
  FakeDeviceMemory::Log log;
  tt::cuda::CachingAllocator alloc(0, std::make_unique<FakeDeviceMemory>(10 * kMiB, &log));
  alloc.release(alloc.allocate(6 * kMiB));  // cached, holding 6 of the 10 MiB
  void* big = alloc.allocate(8 * kMiB);     // fits only once the cache is returned
  EXPECT_NE(big, nullptr);
  EXPECT_EQ(log.failed_mallocs, 1);
  EXPECT_EQ(log.frees, 1);
  EXPECT_EQ(alloc.stats().bytes_reserved, 8 * kMiB);
  alloc.release(big);
}

TEST(CachingAllocator, OutOfMemoryMessageSaysWhatWasAskedAndWhatIsLeft) {
  FakeDeviceMemory::Log log;
  tt::cuda::CachingAllocator alloc(0, std::make_unique<FakeDeviceMemory>(80 * kGiB, &log));
  void* held = alloc.allocate(3 * kGiB);
  try {
    alloc.allocate(78 * kGiB);
    FAIL() << "expected tt::OutOfMemoryError";
  } catch (const tt::OutOfMemoryError& e) {
    EXPECT_STREQ(e.what(),
                 "CUDA out of memory on cuda:0: tried to allocate 78.00 GiB; 77.00 GiB free of "
                 "80.00 GiB, 3.00 GiB reserved by tensortune.");
  }
  EXPECT_EQ(log.failed_mallocs, 2);  // the first try and the retry after emptying
  alloc.release(held);
}

TEST(CachingAllocator, UnknownPointerIsIgnored) {
  FakeDeviceMemory::Log log;
  tt::cuda::CachingAllocator alloc(0, std::make_unique<FakeDeviceMemory>(kGiB, &log));
  int not_from_the_allocator = 0;
  alloc.release(&not_from_the_allocator);
  EXPECT_EQ(alloc.stats().bytes_reserved, 0u);
}

TEST(CachingAllocator, ConcurrentUseKeepsTheBooksBalanced) {
  FakeDeviceMemory::Log log;
  tt::cuda::CachingAllocator alloc(0, std::make_unique<FakeDeviceMemory>(64 * kGiB, &log));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&alloc, t] {
      std::vector<void*> live;
      for (int i = 0; i < 2000; ++i) {
        live.push_back(alloc.allocate(static_cast<size_t>(512 * (1 + (i + t) % 7))));
        if (live.size() > 5) {
          alloc.release(live.front());
          live.erase(live.begin());
        }
      }
      for (void* p : live) alloc.release(p);
    });
  }
  for (auto& th : threads) th.join();
  const tt::cuda::MemoryStats s = alloc.stats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.num_allocs, 8000u);
  EXPECT_EQ(s.bytes_reserved, log.used);
  EXPECT_GT(s.num_cache_hits, 7000u);
}

TEST(CachingAllocator, FormatsBytes) {
  EXPECT_EQ(tt::cuda::format_bytes(512), "512 B");
  EXPECT_EQ(tt::cuda::format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(tt::cuda::format_bytes(2 * kGiB), "2.00 GiB");
  EXPECT_EQ(tt::cuda::format_bytes(size_t{1} << 50), "1.00 PiB");
}

// ---------------------------------------------------------------- on a GPU

TEST(CudaRuntime, DeviceInfoDescribesDevice0) {
  TT_REQUIRE_CUDA();
  tt::cuda::DeviceInfo info = tt::cuda::device_info(0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GE(info.cc_major, 1);
  EXPECT_GT(info.total_memory, 0u);
  EXPECT_LE(info.free_memory, info.total_memory);
  EXPECT_GT(info.driver_version, 0);
  EXPECT_GT(info.runtime_version, 0);
}

// The cached limits that the launchers size their grids by agree with the device's own
// description.
TEST(CudaRuntime, DeviceLimitsAgreeWithDeviceInfo) {
  TT_REQUIRE_CUDA();
  const tt::cuda::DeviceInfo info = tt::cuda::device_info(0);
  const tt::cuda::DeviceLimits& lim = tt::cuda::device_limits(0);
  EXPECT_TRUE(lim.known);
  EXPECT_EQ(lim.sm_count, info.sm_count);
  EXPECT_EQ(lim.cc_major, info.cc_major);
  EXPECT_EQ(lim.cc_minor, info.cc_minor);
  EXPECT_EQ(&tt::cuda::device_limits(0), &lim);
}

TEST(CudaRuntime, MissingDeviceIsAClearError) {
  TT_REQUIRE_CUDA();
  const int count = tt::cuda::device_count();
  EXPECT_EQ(error_of([&] { Tensor::zeros({2}, DType::F32, Device::cuda(count)); }),
            fmt::format("CUDA device cuda:{} does not exist: this machine has {} CUDA device{}.",
                        count, count, count == 1 ? "" : "s"));
}

TEST(CudaRuntime, DeviceGuardRestoresTheCurrentDevice) {
  TT_REQUIRE_CUDA();
  int before = -1, inside = -1, after = -1;
  ASSERT_EQ(cudaGetDevice(&before), cudaSuccess);
  {
    tt::cuda::DeviceGuard guard(tt::cuda::device_count() - 1);
    ASSERT_EQ(cudaGetDevice(&inside), cudaSuccess);
  }
  ASSERT_EQ(cudaGetDevice(&after), cudaSuccess);
  EXPECT_EQ(inside, tt::cuda::device_count() - 1);
  EXPECT_EQ(after, before);
}

TEST(CudaRuntime, StreamIsCreatedOnceAndIsNonBlocking) {
  TT_REQUIRE_CUDA();
  cudaStream_t s = tt::cuda::stream(0);
  EXPECT_EQ(tt::cuda::stream(0), s);
  unsigned int flags = 0;
  ASSERT_EQ(cudaStreamGetFlags(s, &flags), cudaSuccess);
  EXPECT_EQ(flags & cudaStreamNonBlocking, static_cast<unsigned int>(cudaStreamNonBlocking));
}

TEST(CudaAllocator, FreedBlockIsReusedAndCounted) {
  TT_REQUIRE_CUDA();
  tt::cuda::empty_cache(0);
  const tt::cuda::MemoryStats before = tt::cuda::memory_stats(0);
  void* a = tt::cuda::allocate(12345, 0);
  ASSERT_NE(a, nullptr);
  tt::cuda::MemoryStats s = tt::cuda::memory_stats(0);
  EXPECT_EQ(s.bytes_in_use, before.bytes_in_use + 12800);  // 12345 rounded to 512 B
  EXPECT_EQ(s.num_allocs, before.num_allocs + 1);
  tt::cuda::release(a, 12345, 0);
  EXPECT_EQ(tt::cuda::memory_stats(0).bytes_in_use, before.bytes_in_use);

  void* b = tt::cuda::allocate(12345, 0);
  EXPECT_EQ(b, a);
  s = tt::cuda::memory_stats(0);
  EXPECT_EQ(s.num_cache_hits, before.num_cache_hits + 1);
  EXPECT_EQ(s.bytes_reserved, before.bytes_reserved + 12800);
  tt::cuda::release(b, 12345, 0);

  tt::cuda::empty_cache(0);
  EXPECT_EQ(tt::cuda::memory_stats(0).bytes_reserved, before.bytes_reserved);
}

TEST(CudaAllocator, TensorsReuseCachedBlocks) {
  TT_REQUIRE_CUDA();
  void* first = nullptr;
  { first = Tensor::zeros({1000}, DType::F32, Device::cuda(0)).data_ptr(); }
  const size_t hits = tt::cuda::memory_stats(0).num_cache_hits;
  Tensor again = Tensor::ones({1000}, DType::F32, Device::cuda(0));
  EXPECT_EQ(again.data_ptr(), first);
  EXPECT_EQ(tt::cuda::memory_stats(0).num_cache_hits, hits + 1);
  EXPECT_EQ(again.to_vector<float>(), std::vector<float>(1000, 1.0f));
}

TEST(CudaAllocator, OutOfMemoryIsTypedAndLeavesTheDeviceUsable) {
  TT_REQUIRE_CUDA();
  const size_t one_pib = size_t{1} << 50;
  try {
    tt::cuda::allocate(one_pib, 0);
    FAIL() << "expected tt::OutOfMemoryError";
  } catch (const tt::OutOfMemoryError& e) {
    EXPECT_THAT(e.what(), StartsWith("CUDA out of memory on cuda:0: tried to allocate 1.00 PiB; "));
    EXPECT_THAT(e.what(), HasSubstr(" reserved by tensortune."));
  }
  // The failed cudaMalloc must not be reported by the next, unrelated check.
  Tensor t = Tensor::full({5}, 2.0, DType::F32, Device::cuda(0));
  EXPECT_EQ(t.to_vector<float>(), std::vector<float>(5, 2.0f));
}

TEST(CudaCopy, RoundTripIsExact) {
  TT_REQUIRE_CUDA();
  Tensor cpu = Tensor::randn({3, 1001}, 7);
  Tensor gpu = cpu.to(Device::cuda(0));
  EXPECT_EQ(gpu.device(), Device::cuda(0));
  EXPECT_EQ(bits_of(gpu.cpu()), bits_of(cpu));

  Tensor i64 = Tensor::from_vector<int64_t>({1, -2, int64_t{1} << 40}, {3});
  EXPECT_EQ(i64.to(Device::cuda(0)).cpu().to_vector<int64_t>(), i64.to_vector<int64_t>());
}

TEST(CudaCopy, DeviceToDeviceCopyInto) {
  TT_REQUIRE_CUDA();
  Tensor src = Tensor::rand({257}, 3, Device::cuda(0));
  Tensor dst = Tensor::zeros({257}, DType::F32, Device::cuda(0));
  dst.copy_(src);
  EXPECT_EQ(bits_of(dst), bits_of(src));
  Tensor cloned = src.clone();
  EXPECT_NE(cloned.data_ptr(), src.data_ptr());
  EXPECT_EQ(bits_of(cloned), bits_of(src));
}

TEST(CudaCopy, StridedViewsBecomeContiguousLikeOnTheCpu) {
  TT_REQUIRE_CUDA();
  Tensor cpu = arange(4 * 5 * 6, {4, 5, 6});
  Tensor gpu = cpu.to(Device::cuda(0));
  auto views = [](const Tensor& t) {
    return std::vector<Tensor>{
        t.permute({2, 0, 1}),
        t.transpose(0, 2),
        t.narrow(1, 1, 3),
        t.narrow(2, 5, 1),
        t.narrow(0, 1, 2).permute({1, 2, 0}).narrow(0, 2, 2),
        t.unsqueeze(1).transpose(1, 3),
    };
  };
  std::vector<Tensor> cv = views(cpu), gv = views(gpu);
  for (size_t i = 0; i < cv.size(); ++i) {
    SCOPED_TRACE(fmt::format("view {} of shape {}", i, tt::shape_str(cv[i].sizes())));
    ASSERT_FALSE(gv[i].is_contiguous());
    Tensor c = gv[i].contiguous();
    EXPECT_TRUE(c.is_contiguous());
    EXPECT_EQ(c.device(), Device::cuda(0));
    EXPECT_EQ(c.to_vector<float>(), cv[i].to_vector<float>());
  }
}

TEST(CudaCopy, StridedCopyOfRank8AndOtherElementSizes) {
  TT_REQUIRE_CUDA();
  Tensor cpu = arange(2 * 3 * 2 * 1 * 2 * 3 * 2 * 2, {2, 3, 2, 1, 2, 3, 2, 2});
  Tensor view = cpu.permute({7, 0, 6, 1, 5, 2, 4, 3});
  Tensor gpu_view = cpu.to(Device::cuda(0)).permute({7, 0, 6, 1, 5, 2, 4, 3});
  EXPECT_EQ(gpu_view.contiguous().to_vector<float>(), view.to_vector<float>());

  for (DType dtype : {DType::F64, DType::I64, DType::I32}) {
    SCOPED_TRACE(tt::dtype_name(dtype));
    Tensor typed = arange(6 * 7, {6, 7}).to(dtype);
    Tensor expected = typed.transpose(0, 1).narrow(0, 1, 5).contiguous();
    Tensor got = typed.to(Device::cuda(0)).transpose(0, 1).narrow(0, 1, 5).contiguous();
    EXPECT_EQ(got.dtype(), dtype);
    EXPECT_EQ(got.to_vector<double>(), expected.to_vector<double>());
  }
}

TEST(CudaFill, FullWritesEveryElementOfEveryWidth) {
  TT_REQUIRE_CUDA();
  EXPECT_EQ(Tensor::full({1001}, -1.5, DType::F32, Device::cuda(0)).to_vector<float>(),
            std::vector<float>(1001, -1.5f));
  EXPECT_EQ(Tensor::full({33}, 0.25, DType::F64, Device::cuda(0)).to_vector<double>(),
            std::vector<double>(33, 0.25));
  EXPECT_EQ(Tensor::full({9}, -7, DType::I64, Device::cuda(0)).to_vector<int64_t>(),
            std::vector<int64_t>(9, -7));
  EXPECT_EQ(Tensor::zeros({0}, DType::F32, Device::cuda(0)).numel(), 0);
}

TEST(CudaFill, RandomFillsAreBitIdenticalToTheCpu) {
  TT_REQUIRE_CUDA();
  const Shape shape{1000003};  // not a multiple of the 4 lanes of a Philox draw
  const uint64_t seed = 0x1234567890ABCDEFull;
  EXPECT_EQ(bits_of(Tensor::rand(shape, seed, Device::cuda(0))),
            bits_of(Tensor::rand(shape, seed)));
  EXPECT_EQ(bits_of(Tensor::randn(shape, seed, Device::cuda(0))),
            bits_of(Tensor::randn(shape, seed)));
  EXPECT_EQ(bits_of(Tensor::uniform(shape, -0.03125, 0.1, seed, Device::cuda(0))),
            bits_of(Tensor::uniform(shape, -0.03125, 0.1, seed)));
}

#endif  // TT_CUDA
