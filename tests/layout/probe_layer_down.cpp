// Must compile: a file of the claims layer including the headers of its own layer and the one below.
#include "rigcheck/claims/claim.hpp"
#include "rigcheck/runfolder/run_folder.hpp"
