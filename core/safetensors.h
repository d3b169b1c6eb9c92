// safetensors I/O: the file format PyTorch and Hugging Face use for weights, and the
// format of the golden fixtures in tests/data. A file is an 8-byte little-endian
// header length N, N bytes of JSON header mapping each tensor name to
// {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the data
// section) plus an optional "__metadata__" object of strings, then the raw
// little-endian tensor bytes.
//
// load() validates the whole header before it reads any tensor data, never reads
// out of bounds, and reports every malformed file as a tt::Error naming the path and
// the problem. save() writes to a temporary file in the same folder and renames it
// into place, so a reader never sees a half-written file.
#pragma once

#include <map>
#include <string>

#include "core/tensor.h"

namespace tt::safetensors {

struct File {
  std::map<std::string, Tensor> tensors;  // contiguous CPU tensors
  std::map<std::string, std::string> metadata;
};

// Reads every tensor of the file into CPU memory.
File load(const std::string& path);

// Writes `tensors` (any device, any strides) and `metadata`. The header is padded
// with spaces to a multiple of 8 bytes so that the data section starts aligned.
void save(const std::string& path, const std::map<std::string, Tensor>& tensors,
          const std::map<std::string, std::string>& metadata = {});

}  // namespace tt::safetensors
