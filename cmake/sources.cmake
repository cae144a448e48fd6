# The sources of the suite's three libraries, relative to the project root: the main build
# (harness/, inventory/, tool/) and the standalone fuzz build (tests/fuzz) both read these lists,
# so a source added here is compiled by both.
set(RIGCHECK_HARNESS_SOURCES
  harness/src/cli.cpp harness/src/csv.cpp harness/src/nvml.cpp harness/src/paths.cpp harness/src/process.cpp
  harness/src/rapl.cpp harness/src/result_writer.cpp harness/src/schema.cpp harness/src/scratch_registry.cpp
  harness/src/session.cpp harness/src/sha256.cpp harness/src/stats.cpp harness/src/topology.cpp)
set(RIGCHECK_INVENTORY_SOURCES
  inventory/src/inventory.cpp inventory/src/cpu.cpp inventory/src/memory.cpp inventory/src/system.cpp
  inventory/src/gpu.cpp inventory/src/util.cpp)
# The tool less its evaluators and main(): the evaluators register themselves at start-up, so
# they are compiled as objects (a static library would drop them).
set(RIGCHECK_TOOL_SOURCES
  tool/src/run/runner.cpp tool/src/run/registry.cpp tool/src/run/needs.cpp tool/src/run/runlock.cpp tool/src/run/scratch_cleanup.cpp
  tool/src/report/report.cpp tool/src/report/run_data.cpp tool/src/report/integrity.cpp tool/src/report/verdict.cpp tool/src/report/vocabulary.cpp tool/src/report/renames.cpp
  tool/src/report/capacity.cpp
  tool/src/report/capacity_render.cpp
  tool/src/report/capacity_user.cpp
  tool/src/report/capacity_fit.cpp
  tool/src/claims/claims.cpp tool/src/claims/cache_model.cpp
  tool/src/compare/statistics.cpp tool/src/compare/load.cpp tool/src/compare/findings.cpp tool/src/compare/noise.cpp
  tool/src/compare/cross_run.cpp tool/src/compare/output.cpp tool/src/compare/compare.cpp tool/src/compare/history.cpp
  tool/src/compare/ab.cpp
  tool/src/html/plot_specs.cpp tool/src/html/plot_script.cpp tool/src/html/gnuplot.cpp tool/src/html/page.cpp)
set(RIGCHECK_EVALUATOR_SOURCES
  tool/src/claims/evaluators_cpu.cpp tool/src/claims/evaluators_cpu_cache.cpp tool/src/claims/evaluators_io.cpp tool/src/claims/evaluators_comm.cpp
  tool/src/claims/evaluators_gpu.cpp tool/src/claims/evaluators_memory.cpp)
