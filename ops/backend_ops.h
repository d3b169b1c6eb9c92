// The ops both backends implement with one signature: the contract between the op front
// end (ops/ops.cpp, ops/*_ops.cpp), which has checked the arguments and normalised the
// dims (non-negative, sorted, unique, non-empty), and each backend, written once. It is
// included inside namespace tt::ops::cpu (ops/cpu/cpu_ops.h) and tt::ops::cuda
// (ops/cuda/cuda_ops_reduce.h, ops/cuda/pointwise/pointwise.h; a second inclusion only
// declares the functions again): hence no include guard and no includes of its own; the
// including header has core/tensor.h, ops/pointwise_functors.h, <cstdint> and <vector>.
// Inputs may be any strided view; results are new contiguous tensors on their device.

// ---- linear and the norms ----
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);
Tensor instance_norm(const Tensor& x, double eps, const Tensor& weight, const Tensor& bias);
Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps);
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps);
// Over the trailing normalized_numel elements of each row; weight/bias contiguous
// [normalized_numel] or undefined; biased variance, eps inside the sqrt.
Tensor layer_norm(const Tensor& x, int64_t normalized_numel, const Tensor& weight,
                  const Tensor& bias, double eps);

// ---- the pointwise family ----
// out = op(inputs), inputs broadcast to out's shape; out may be any non-overlapping
// strided view (in-place ops pass self) and may alias an input element for element.
void unary(pointwise::UnaryOp op, const pointwise::UnaryParams& params, const Tensor& x,
           const Tensor& out);
void binary(pointwise::BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out);
void where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out);

// ---- reductions, softmax, rms_norm, bmm ----
Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
// correction: 1 = unbiased (Bessel), 0 = biased; N - correction <= 0 gives nan/inf.
Tensor var(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim);
Tensor std(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim);
Tensor amax(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
Tensor amin(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
// int64 result; ties: the first index; NaN counts as the max/min.
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim);
Tensor argmin(const Tensor& x, int64_t dim, bool keepdim);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
// Over the trailing normalized_numel elements of each row (as layer_norm); weight
// contiguous [normalized_numel] or undefined.
Tensor rms_norm(const Tensor& x, int64_t normalized_numel, const Tensor& weight, double eps);
// a [B, m, k], b [B, k, n], any strides (batch stride 0 for a broadcast batch);
// out contiguous [B, m, n]; strict float32 (CUDA: in the precision mode).
Tensor bmm(const Tensor& a, const Tensor& b);
