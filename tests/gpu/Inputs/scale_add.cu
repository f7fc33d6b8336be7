// A known kernel for the runtime's driver test: x[i] = 2 x[i] + 1.
extern "C" __global__ void scale_add(float *x, int n) {
  extern __shared__ float scratch[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  scratch[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) x[i] = 2.0f * scratch[threadIdx.x] + 1.0f;
}
