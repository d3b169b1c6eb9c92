// Where a tensor lives: the CPU or one CUDA device.
#pragma once

#include <string>

namespace tt {

enum class DeviceKind { CPU, CUDA };

struct Device {
  DeviceKind kind = DeviceKind::CPU;
  int index = 0;

  static Device cpu() { return {DeviceKind::CPU, 0}; }
  static Device cuda(int i = 0) { return {DeviceKind::CUDA, i}; }
  bool is_cpu() const { return kind == DeviceKind::CPU; }
  bool is_cuda() const { return kind == DeviceKind::CUDA; }
  bool operator==(const Device& o) const {
    return kind == o.kind && (is_cpu() || index == o.index);
  }
  bool operator!=(const Device& o) const { return !(*this == o); }

  // "cpu", "cuda:0"
  std::string str() const;
  // Accepts "cpu", "cuda", "cuda:N"; throws tt::Error otherwise.
  static Device parse(const std::string& text);
};

}  // namespace tt
