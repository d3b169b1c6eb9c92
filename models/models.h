// Everything models/ offers in one include: the layers, the five seed models, the
// registry, the fixture checker and the float64 reference (models/compare.h).
#pragma once

#include "models/compare.h"
#include "models/fixture_check.h"
#include "models/gemm_bias_relu.h"
#include "models/gemm_instance_norm_add_mul.h"
#include "models/gemm_scale_batch_norm.h"
#include "models/gemm_swish_bias_group_norm.h"
#include "models/instance_norm2d_model.h"
#include "models/layers.h"
#include "models/registry.h"
