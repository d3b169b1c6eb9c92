// The cuBLAS handle of each device: created on first use, bound to the device's
// tensortune stream (core/cuda/stream.h), so that GEMMs are ordered with every other
// op, and left in CUBLAS_DEFAULT_MATH, under which float32 GEMMs never use TF32
// tensor cores (strict precision). Code that wants TF32 must ask for it per call
// (cublasLt compute type) rather than change this handle's math mode.
#pragma once

#include <cublas_v2.h>

namespace tt::cuda {

// Throws tt::Error for a device that does not exist. The handle is shared by every
// host thread; cuBLAS handles are safe to use from several threads as long as they
// are not reconfigured concurrently, which tensortune never does.
cublasHandle_t cublas_handle(int device);

}  // namespace tt::cuda
