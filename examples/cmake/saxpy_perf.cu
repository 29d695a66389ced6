// saxpy_perf.cu — perf tests in CUDA C++: a kernel, its launcher, two claims.
#include <cuda_runtime.h>
#include <perfgate.h>

__global__ void saxpy(float a, const float *x, float *y, size_t n)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

struct vectors {
  float *x, *y;
  size_t n;
  cudaStream_t s;
};

static void destroy(void *s) { PERF_CUDA(cudaStreamDestroy((cudaStream_t)s)); }

static void setup(vectors *v, size_t n)
{
  v->n = n;
  PERF_CUDA(cudaStreamCreate(&v->s));
  PERF_DEFER(destroy, v->s);
  PERF_ALLOC_DEVICE(v->x, n * sizeof(float));
  PERF_ALLOC_DEVICE(v->y, n * sizeof(float));
  PERF_CUDA(cudaMemsetAsync(v->x, 0, n * sizeof(float), v->s));
  PERF_CUDA(cudaMemsetAsync(v->y, 0, n * sizeof(float), v->s));
}

static void once(void *arg)
{
  vectors *v = (vectors *)arg;
  saxpy<<<(unsigned)((v->n + 255) / 256), 256, 0, v->s>>>(2.0f, v->x, v->y, v->n);
  PERF_CUDA(cudaGetLastError());
}

static void twice(void *arg)
{
  once(arg);
  once(arg);
}

PERF_TEST(saxpy, one_pass_beats_two)
{
  vectors v;
  setup(&v, 1 << 24);
  perf_workload one = PERF_WORKLOAD(once, &v, .stream = v.s);
  perf_workload two = PERF_WORKLOAD(twice, &v, .stream = v.s);
  PERF_EXPECT_FASTER(one, two, 1.5);
}

PERF_TEST(saxpy, streams_near_the_dram_peak)
{
  vectors v;
  setup(&v, 1 << 26);  // 256 MiB a vector: beyond any L2
  double bytes = 4.0 * v.n;
  perf_workload w = PERF_WORKLOAD(once, &v, .stream = v.s, .clock = PERF_CLOCK_AUTO,
                                  .bytes_read = 2 * bytes, .bytes_written = bytes);
  PERF_EXPECT_BANDWIDTH(w, 0.6);
}
