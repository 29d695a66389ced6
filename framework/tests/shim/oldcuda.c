/* oldcuda.c — a stand-in libcuda.so.1 claiming CUDA 12.0 only: a driver older than the runtime. */
/* It is found first through LD_LIBRARY_PATH. */

enum { SUCCESS = 0, NOT_INITIALIZED = 3 };

/* What the runtime asks first: the version, too old for it. */
int cuDriverGetVersion(int *version)
{
  *version = 12000;
  return SUCCESS;
}

int cuInit(unsigned flags)
{
  (void)flags;
  return SUCCESS;
}

/* What perfgate asks of a loaded driver (is there a context?), answered
 * as by a driver nobody initialised. */
int cuCtxGetCurrent(void **ctx)
{
  *ctx = 0;
  return NOT_INITIALIZED;
}

int cuDeviceGetCount(int *n)
{
  *n = 0;
  return NOT_INITIALIZED;
}

int cuDeviceGet(int *dev, int ordinal)
{
  (void)dev;
  (void)ordinal;
  return NOT_INITIALIZED;
}

int cuDevicePrimaryCtxGetState(int dev, unsigned *flags, int *active)
{
  (void)dev;
  *flags = 0;
  *active = 0;
  return NOT_INITIALIZED;
}
