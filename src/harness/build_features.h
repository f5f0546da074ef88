#pragma once
// What this build compiled in, as CMake found it. One small generated file in the build folder
// (src/harness/build_features.cpp.in) knows, so that no other file's compile flags depend on
// whether CUDA was found: the objects the main job built without CUDA serve the test command's
// build with CUDA unchanged (issue 45).

namespace collbench {

// True where the CUDA code is built in (collbench_cuda and the GPU engines; NCCL where found).
bool cuda_built();

}  // namespace collbench
