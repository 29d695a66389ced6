/* baselines.c — main() of perfgate-baselines: baseline files validated without CUDA. */
/* The program is framework/src/supervisor/baselinetool.h's. */
#include "supervisor/baselinetool.h"

int main(int argc, char **argv) { return perf__baselinetool_main(argc, argv); }
