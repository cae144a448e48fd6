// One name per benchmark and per metric. The binary that writes a row and the evaluator, report or
// comparison that selects it use the same constant, so a rename fails to compile instead of turning
// a verdict into not_measurable. A binary is named after its source file (cpu/gemm.cpp -> cpu_gemm),
// a registry entry after its binary with a suffix for each variant (io_fio_disk; scripts/registry.sh
// checks it); the CSV's `benchmark` column names what the binary measured, several per binary
// (gemm_matmul_f32, gemm_sgemm_openblas). Which binary writes which name its --describe says
// (harness/registry_entry.hpp); the tests hold each name to one binary. A name that
// changed is read under its old name in older run folders through data/renames.csv (old -> new), so
// histories survive a rename.
#pragma once

namespace rigcheck::names {

// ---- benchmarks (the `benchmark` column), by binary
// cpu_peak
inline constexpr char kFmaPeak[] = "fma_peak_f32";
// cpu_gemm
inline constexpr char kGemmMatmul[] = "gemm_matmul_f32";
inline constexpr char kGemmSgemmOnednn[] = "gemm_sgemm_onednn";
inline constexpr char kGemmSgemmOpenblas[] = "gemm_sgemm_openblas";
inline constexpr char kFcInnerProduct[] = "fc_inner_product_f32";
// cpu_isa
inline constexpr char kIsaPrimitives[] = "isa_primitives";
// cpu_cache_fc
inline constexpr char kFcWorkingSet[] = "fc_working_set_f32";
// cpu_resnet
inline constexpr char kResnetTrainStep[] = "resnet50_train_step";
inline constexpr char kResnetIsa[] = "resnet50_isa";
// memory_bandwidth; old run folders name it stream_bandwidth (data/renames.csv)
inline constexpr char kMemoryBandwidth[] = "memory_bandwidth";
// memory_latency: the curve, the curve with the other cores streaming, the levels found on it
inline constexpr char kMemoryLatency[] = "memory_latency";
inline constexpr char kMemoryLatencyLoaded[] = "memory_latency_loaded";
// the chase from each NUMA node's cores to each node's memory (local and remote: Intel MLC's matrix)
inline constexpr char kMemoryLatencyNuma[] = "memory_latency_numa";
inline constexpr char kLatencyLevels[] = "latency_levels";
// memory_thp
inline constexpr char kThpAlloc[] = "thp_alloc";
inline constexpr char kThpGups[] = "thp_gups";
// memory_host
inline constexpr char kHostMemoryTraining[] = "host_memory_training";
// io_fio, io_dataloader
inline constexpr char kFio[] = "fio";
inline constexpr char kDataloaderIoWait[] = "dataloader_io_wait";
inline constexpr char kDataloaderVsFio[] = "dataloader_vs_fio";
// comm_allreduce_mpi, comm_allreduce_nccl
inline constexpr char kMpiAllreduce[] = "mpi_allreduce_f32";
inline constexpr char kMpiRanks[] = "mpi_ranks";
inline constexpr char kNcclAllreduce[] = "nccl_allreduce_f32";
inline constexpr char kNcclRanks[] = "nccl_ranks";
// gpu_gemm and gpu_gemm_sustained; old run folders name them gemm_tc and gemm_sustained (data/renames.csv)
inline constexpr char kGpuGemm[] = "gpu_gemm";
inline constexpr char kGpuGemmSustained[] = "gpu_gemm_sustained";
// gpu_transfer, gpu_model_memory, gpu_torch_peer
inline constexpr char kGpuTransfer[] = "gpu_transfer";
inline constexpr char kModelMemory[] = "model_memory";
inline constexpr char kTorchPeer[] = "torch_peer";

// ---- metrics the harness derives from every case's work model (docs/methodology.md)
inline constexpr char kTimePerIter[] = "time_per_iter";
inline constexpr char kGflops[] = "gflops";  // GFLOP/s (TFLOP/s figures are gflops / 1000)
inline constexpr char kGbps[] = "gbps";      // GB/s, 1e9 bytes
inline constexpr char kItemsPerS[] = "items_per_s";
inline constexpr char kCpuUtilization[] = "cpu_utilization";
inline constexpr char kIterations[] = "iterations";
// Threads of the process that each worked a share of a timed repetition (harness/threads.hpp).
inline constexpr char kThreadsWorking[] = "threads_working";
inline constexpr char kCheckWrong[] = "check_wrong";

// ---- metrics particular to some benchmarks, read by the evaluators
inline constexpr char kBusbw[] = "busbw";
inline constexpr char kAlgbw[] = "algbw";
inline constexpr char kNetTxBytesPerRank[] = "net_tx_bytes_per_rank";
inline constexpr char kNsPerLoad[] = "ns_per_load";
inline constexpr char kLevelSizeBytes[] = "level_size_bytes";
inline constexpr char kLevelLatencyNs[] = "level_latency_ns";
inline constexpr char kFirstTouchUsPerPage[] = "first_touch_us_per_page";  // thp_alloc, derived per repetition
inline constexpr char kPeakRssBytes[] = "peak_rss_bytes";
inline constexpr char kBaselineRssBytes[] = "baseline_rss_bytes";
inline constexpr char kStepTime[] = "step_time";  // s, one training step (memory_host, io_dataloader)
inline constexpr char kIops[] = "iops";
inline constexpr char kClatP50[] = "clat_p50";  // us, fio's completion latency percentiles and mean
inline constexpr char kClatP99[] = "clat_p99";
inline constexpr char kClatP999[] = "clat_p999";
inline constexpr char kClatMean[] = "clat_mean";
inline constexpr char kIoBytes[] = "io_bytes";  // B, what fio moved
inline constexpr char kIoWaitPerStep[] = "io_wait_per_step";
inline constexpr char kIopsIssued[] = "iops_issued";
inline constexpr char kReadsPerSample[] = "reads_per_sample";
inline constexpr char kDeviceIops[] = "device_iops";
inline constexpr char kDeviceReadsPerSample[] = "device_reads_per_sample";
inline constexpr char kStepRateRun[] = "step_rate_run";
inline constexpr char kPeakReservedBytes[] = "peak_reserved_bytes";
inline constexpr char kPeakAllocatedBytes[] = "peak_allocated_bytes";
inline constexpr char kDeviceUsedBytes[] = "device_used_bytes";
inline constexpr char kPowerMaxW[] = "power_max_w";
inline constexpr char kPowerMeanW[] = "power_mean_w";  // W, the energy counter's increase over the time held
inline constexpr char kCpuPackagePowerMeanW[] = "cpu_package_power_mean_w";
inline constexpr char kCpuPackagePowerMaxW[] = "cpu_package_power_max_w";
inline constexpr char kGpuTempMaxC[] = "gpu_temp_max_c";
inline constexpr char kSmClockMedianMhz[] = "sm_clock_median_mhz";
inline constexpr char kThermalThrottleFraction[] = "thermal_throttle_fraction";

}  // namespace rigcheck::names
