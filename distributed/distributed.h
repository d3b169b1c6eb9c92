// tensortune's distributed layer in one include: the launcher's environment, stores,
// process groups and their collectives, and the sharding arithmetic of tensor
// parallelism. docs/distributed.md tells how to launch a job.
#pragma once

#include "distributed/env.h"
#include "distributed/process_group.h"
#include "distributed/sharding.h"
#include "distributed/store.h"
