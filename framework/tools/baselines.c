/* baselines.c — main() of perfgate-baselines (framework/src/supervisor/baselinetool.h): baseline files validated without CUDA. */
#include "supervisor/baselinetool.h"

int main(int argc, char **argv) { return perf__baselinetool_main(argc, argv); }
