/* main.c — the default main() of a perftest binary; define your own to call perf_main yourself. */
#include "perfgate.h"

int main(int argc, char **argv) { return perf_main(argc, argv); }
