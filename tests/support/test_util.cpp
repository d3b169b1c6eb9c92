#include "support/test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <system_error>
#include <vector>

#include "core/cuda/available.h"

namespace tt::test {

bool cuda_available() { return cuda::is_available(); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

ScratchDir::ScratchDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
  TT_CHECK(::mkdtemp(pattern.data()) != nullptr, "ScratchDir: cannot create {}: {}", pattern,
           std::strerror(errno));
  dir_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::permissions(dir_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(dir_, ec);
}

std::string ScratchDir::path(const std::string& name) const {
  return (std::filesystem::path(dir_) / name).string();
}

double rel_l2(const Tensor& a, const Tensor& b) {
  auto va = a.to_vector<double>();
  auto vb = b.to_vector<double>();
  EXPECT_EQ(va.size(), vb.size());
  double num = 0, den = 0;
  for (size_t i = 0; i < va.size() && i < vb.size(); ++i) {
    double d = va[i] - vb[i];
    if (std::isnan(va[i]) || std::isnan(vb[i])) return INFINITY;
    num += d * d;
    den += vb[i] * vb[i];
  }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  auto va = a.to_vector<double>();
  auto vb = b.to_vector<double>();
  double m = 0;
  for (size_t i = 0; i < va.size() && i < vb.size(); ++i) {
    double d = std::fabs(va[i] - vb[i]);
    if (std::isnan(d)) return INFINITY;
    m = std::max(m, d);
  }
  return m;
}

float* float_ptr(const Tensor& t) { return t.defined() ? t.data<float>() : nullptr; }

Tensor nan_filled(const Shape& shape, Device device) {
  return Tensor::full(shape, std::numeric_limits<double>::quiet_NaN(), DType::F32, device);
}

CommandResult run_command(const std::string& command) {
  std::string full = command + " 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  int status = pclose(pipe);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return {code, out};
}

int run_in_processes(int n, const std::function<void(int)>& body) {
  std::vector<pid_t> children;
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      ++failed;
      continue;
    }
    if (pid == 0) {
      int status = 0;
      try {
        body(i);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "process %d: %s\n", i, e.what());
        status = 1;
      }
      std::fflush(stderr);
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ++failed;
    }
  }
  return failed;
}

void expect_every_mode_matches(
    CompiledModule& compiled, const Tensor& cuda_input, const Tensor& want,
    const std::function<void(Precision, const std::string& report)>& check) {
  for (const Precision mode : {Precision::strict, Precision::tf32, Precision::accurate}) {
    const PrecisionGuard guard(mode);
    for (int round = 0; round < 2; ++round) {
      const Tensor got = compiled({cuda_input})[0];
      EXPECT_LE(rel_l2(got, want), mode == Precision::tf32 ? 2e-3 : 1e-5)
          << precision_name(mode) << "\n"
          << compiled.explain();
    }
    check(mode, compiled.explain());
  }
}

}  // namespace tt::test
