/* nocupti.c — an LD_PRELOAD shim that makes cuptiSubscribe fail as when a profiler holds CUPTI. */
#include <cupti.h>

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber,
                                    CUpti_CallbackFunc callback, void *userdata)
{
  (void)subscriber, (void)callback, (void)userdata;
  return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
}
