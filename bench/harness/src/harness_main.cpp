#include "rigcheck/harness/harness.hpp"

int main(int argc, char** argv) { return rigcheck::harness_main(argc, argv); }
