// PD_HD marks code that runs on both the CPU and the GPU: functions shared by the
// CPU loops and the CUDA kernels, and the loop bodies of Kernel.h.
#pragma once

#ifdef __CUDACC__
#define PD_HD __host__ __device__
#else
#define PD_HD
#endif
