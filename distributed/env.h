// The launcher's environment, under torchrun's names, so that `tt launch`, torchrun
// and a batch system's wrapper all start a tensortune job the same way:
//   RANK          this process's rank, 0 .. WORLD_SIZE-1
//   WORLD_SIZE    how many processes take part
//   LOCAL_RANK    this process's rank on its host: the CUDA device it drives
//   MASTER_ADDR   where rank 0's TCPStore listens
//   MASTER_PORT   on which port (1 .. 65535)
#pragma once

#include <string>

namespace tt::distributed {

struct LaunchEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr;
  int master_port = 0;
};

// Reads and checks the five variables; a missing or malformed one is a tt::Error
// sentence naming the variable, what it must be and what it is.
LaunchEnv read_launch_env();

}  // namespace tt::distributed
