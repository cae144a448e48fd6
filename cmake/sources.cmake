# The sources of the suite's libraries under bench/, relative to the project root: the main build
# (bench/CMakeLists.txt) and the standalone fuzz build (tests/fuzz) both read these lists, so a
# source added here is compiled by both.
set(RIGCHECK_HARNESS_SOURCES
  bench/harness/src/cli.cpp bench/harness/src/csv.cpp bench/harness/src/distributions.cpp bench/harness/src/nvml.cpp
  bench/harness/src/paths.cpp bench/harness/src/process.cpp bench/harness/src/rapl.cpp bench/harness/src/result_writer.cpp
  bench/harness/src/schema.cpp bench/harness/src/scratch_registry.cpp bench/harness/src/session.cpp
  bench/harness/src/sha256.cpp bench/harness/src/stats.cpp bench/harness/src/topology.cpp bench/harness/src/units.cpp
  bench/harness/src/time_budget.cpp bench/harness/src/emulation.cpp bench/harness/src/allocator.cpp
  bench/harness/src/threads.cpp bench/harness/src/machine_topology.cpp bench/harness/src/thread_placement.cpp)
set(RIGCHECK_INVENTORY_SOURCES
  bench/inventory/src/inventory.cpp bench/inventory/src/cpu.cpp bench/inventory/src/memory.cpp
  bench/inventory/src/system.cpp bench/inventory/src/gpu.cpp bench/inventory/src/util.cpp bench/inventory/src/arm.cpp
  bench/inventory/src/shape.cpp)
# The tool's layers, lowest first (docs/architecture.md); each is a library of its own in
# bench/CMakeLists.txt and may include only its own headers and those below it.
set(RIGCHECK_RUNFOLDER_SOURCES
  bench/runfolder/src/folder.cpp bench/runfolder/src/run_data.cpp bench/runfolder/src/integrity.cpp
  bench/runfolder/src/renames.cpp bench/runfolder/src/runlock.cpp bench/runfolder/src/needs.cpp
  bench/runfolder/src/registries.cpp bench/runfolder/src/registry.cpp bench/runfolder/src/machine_identity.cpp)
set(RIGCHECK_CLAIMS_SOURCES
  bench/claims/src/claims.cpp bench/claims/src/cache_model.cpp bench/claims/src/verdict.cpp
  bench/claims/src/vocabulary.cpp bench/claims/src/scaling_prediction.cpp bench/claims/src/gpu_datasheet.cpp)
set(RIGCHECK_REPORT_SOURCES
  bench/report/src/report.cpp bench/report/src/report_model.cpp bench/report/src/numa_md.cpp bench/report/src/capacity.cpp bench/report/src/capacity_render.cpp
  bench/report/src/capacity_user.cpp bench/report/src/capacity_fit.cpp bench/report/src/capacity_step.cpp
  bench/report/src/capacity_zoo.cpp
  bench/report/src/export.cpp
  bench/report/src/html/plot_specs.cpp bench/report/src/html/plot_script.cpp bench/report/src/html/gnuplot.cpp
  bench/report/src/html/page.cpp bench/report/src/html/machine_svg.cpp)
set(RIGCHECK_COMPARE_SOURCES
  bench/compare/src/statistics.cpp bench/compare/src/load.cpp bench/compare/src/findings.cpp
  bench/compare/src/noise.cpp bench/compare/src/cross_run.cpp bench/compare/src/output.cpp
  bench/compare/src/compare.cpp bench/compare/src/history.cpp bench/compare/src/ab.cpp
  bench/compare/src/paired.cpp bench/compare/src/gate.cpp bench/compare/src/prior.cpp
  bench/compare/src/machine_state.cpp bench/compare/src/shared_cache.cpp bench/compare/src/run_digest.cpp
  bench/compare/src/cross_arch.cpp bench/compare/src/timeline.cpp bench/compare/src/timeline_svg.cpp)
set(RIGCHECK_CLI_SOURCES
  bench/rigcheck/src/runner.cpp bench/rigcheck/src/runner_select.cpp bench/rigcheck/src/runner_helpers.cpp
  bench/rigcheck/src/recover.cpp
  bench/rigcheck/src/launcher.cpp bench/rigcheck/src/budget.cpp
  bench/rigcheck/src/scratch_cleanup.cpp bench/rigcheck/src/huge_pages.cpp bench/rigcheck/src/inventory_cmd.cpp)
# The results store (rigcheck store, docs/store.md): above runfolder, on SQLite (SQLiteCpp) and PostgreSQL
# (libpq). Not in
# RIGCHECK_TOOL_SOURCES: the fuzz build reads that list and has no database library.
set(RIGCHECK_STORE_SOURCES
  bench/store/src/sqlite_backend.cpp bench/store/src/schema.cpp bench/store/src/records.cpp
  bench/store/src/import.cpp bench/store/src/machines.cpp bench/store/src/query.cpp bench/store/src/select.cpp)
set(RIGCHECK_STORE_PG_SOURCES bench/store/src/pg_backend.cpp)  # with libpq (RIGCHECK_WITH_POSTGRESQL)
# What registers itself at start-up (an evaluator of claims, an export format) is one file each, found
# by its name: adding one is adding its file. CONFIGURE_DEPENDS makes the build look again for new ones.
get_filename_component(_rigcheck_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
file(GLOB RIGCHECK_EVALUATOR_SOURCES CONFIGURE_DEPENDS RELATIVE "${_rigcheck_root}"
     "${_rigcheck_root}/bench/claims/src/evaluators_*.cpp")
file(GLOB RIGCHECK_EXPORT_FORMAT_SOURCES CONFIGURE_DEPENDS RELATIVE "${_rigcheck_root}"
     "${_rigcheck_root}/bench/report/src/export_*.cpp")
list(APPEND RIGCHECK_REPORT_SOURCES ${RIGCHECK_EXPORT_FORMAT_SOURCES})
# The tool less its evaluators and main(): the evaluators register themselves at start-up, so they
# are compiled as objects (a static library would drop them).
set(RIGCHECK_TOOL_SOURCES ${RIGCHECK_RUNFOLDER_SOURCES} ${RIGCHECK_CLAIMS_SOURCES} ${RIGCHECK_REPORT_SOURCES}
    ${RIGCHECK_COMPARE_SOURCES} ${RIGCHECK_CLI_SOURCES})
# The include folders of the tool's layers.
set(RIGCHECK_TOOL_INCLUDE_DIRS
  bench/runfolder/include bench/claims/include bench/report/include bench/compare/include bench/rigcheck/include)
