#pragma once
// The one place that knows which oneDNN it is built against, by oneDNN's own DNNL_VERSION_MAJOR:
// Debian 12 ships 2.6 (libdnnl.so.2), Debian 13 ships 3.7 (libdnnl.so.3). What differs for the suite:
//  - 3.x has no operation descriptors (dnnl::matmul::desc and the like): a primitive descriptor takes
//    the engine and the memory descriptors directly;
//  - the ISA enum: 3.x dropped avx512_mic*, renumbered avx512_core_amx and added avx2_vnni_2,
//    avx512_core_fp16 (= avx10_1_512) and avx512_core_amx_fp16 (= avx10_1_512_amx_fp16);
//  - verbose lines: 3.x puts a marker ("primitive", and a format version "v1" from 3.5) before
//    "exec", so the fields are found from "exec" on.
#include <oneapi/dnnl/dnnl.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace rigcheck::cpu::onednn_api {

#if DNNL_VERSION_MAJOR >= 3
inline dnnl::matmul::primitive_desc matmul_pd(const dnnl::engine& eng, const dnnl::memory::desc& src,
                                              const dnnl::memory::desc& weights, const dnnl::memory::desc& dst) {
  return dnnl::matmul::primitive_desc(eng, src, weights, dst);
}

inline dnnl::inner_product_forward::primitive_desc inner_product_pd(const dnnl::engine& eng, dnnl::prop_kind prop,
                                                                    const dnnl::memory::desc& src,
                                                                    const dnnl::memory::desc& weights,
                                                                    const dnnl::memory::desc& bias,
                                                                    const dnnl::memory::desc& dst) {
  return dnnl::inner_product_forward::primitive_desc(eng, prop, src, weights, bias, dst);
}

inline dnnl::convolution_forward::primitive_desc convolution_pd(
    const dnnl::engine& eng, dnnl::prop_kind prop, dnnl::algorithm alg, const dnnl::memory::desc& src,
    const dnnl::memory::desc& weights, const dnnl::memory::desc& bias, const dnnl::memory::desc& dst,
    const dnnl::memory::dims& strides, const dnnl::memory::dims& padding_l, const dnnl::memory::dims& padding_r) {
  return dnnl::convolution_forward::primitive_desc(eng, prop, alg, src, weights, bias, dst, strides, padding_l,
                                                   padding_r);
}
#else
inline dnnl::matmul::primitive_desc matmul_pd(const dnnl::engine& eng, const dnnl::memory::desc& src,
                                              const dnnl::memory::desc& weights, const dnnl::memory::desc& dst) {
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), eng);
}

inline dnnl::inner_product_forward::primitive_desc inner_product_pd(const dnnl::engine& eng, dnnl::prop_kind prop,
                                                                    const dnnl::memory::desc& src,
                                                                    const dnnl::memory::desc& weights,
                                                                    const dnnl::memory::desc& bias,
                                                                    const dnnl::memory::desc& dst) {
  return dnnl::inner_product_forward::primitive_desc(dnnl::inner_product_forward::desc(prop, src, weights, bias, dst),
                                                     eng);
}

inline dnnl::convolution_forward::primitive_desc convolution_pd(
    const dnnl::engine& eng, dnnl::prop_kind prop, dnnl::algorithm alg, const dnnl::memory::desc& src,
    const dnnl::memory::desc& weights, const dnnl::memory::desc& bias, const dnnl::memory::desc& dst,
    const dnnl::memory::dims& strides, const dnnl::memory::dims& padding_l, const dnnl::memory::dims& padding_r) {
  return dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(prop, alg, src, weights, bias, dst, strides, padding_l, padding_r), eng);
}
#endif

// The name of an ISA oneDNN reports (dnnl_get_effective_cpu_isa), as oneDNN's documentation names it
// (ONEDNN_MAX_CPU_ISA), lower case: the same ISA has the same name under 2.x and 3.x; where 3.x
// gives one value two names (avx512_core_fp16 = avx10_1_512), the older, 2.x-style one. A value
// this table lacks (a oneDNN newer than the build knows) is named by its number.
inline std::string isa_name(dnnl_cpu_isa_t isa) {
#if defined(__aarch64__)
  // oneDNN's public enum names x86-64 ISAs only (2.6); its aarch64 build returns its own values in
  // it, read here as seen with oneDNN 2.6.3 under qemu-aarch64 -cpu max,sve512=on
  // (ONEDNN_MAX_CPU_ISA=ADVANCED_SIMD: 0x1; uncapped: 0x1f). 2.6 has SVE kernels for 512-bit
  // vectors only (jit:sve_512).
  const unsigned v = static_cast<unsigned>(isa);
  if (v == 0x1) return "asimd";
  if (v == 0x1f) return "sve_512";
  return fmt::format("aarch64_0x{:x}", v);
#else
  switch (isa) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
#if DNNL_VERSION_MAJOR >= 3
    case dnnl_cpu_isa_avx2_vnni_2: return "avx2_vnni_2";
    case dnnl_cpu_isa_avx512_core_fp16: return "avx512_core_fp16";
    case dnnl_cpu_isa_avx512_core_amx_fp16: return "avx512_core_amx_fp16";
#else
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
#endif
    default: return fmt::format("isa_0x{:x}", static_cast<unsigned>(isa));
  }
#endif
}

inline std::string isa_name(dnnl::cpu_isa isa) { return isa_name(static_cast<dnnl_cpu_isa_t>(isa)); }

// One line of oneDNN's verbose output: when it reports a primitive's execution, its primitive kind
// ("convolution") and implementation ("brgconv:avx512_core"). 2.x:
//   onednn_verbose,exec,cpu,convolution,brgconv:avx512_core,forward_training,...
// 3.x: onednn_verbose,[TIMESTAMP,][v1,]primitive,exec,cpu,convolution,brgconv:avx512_core,...
inline bool verbose_exec(const std::string& line, std::string* kind, std::string* impl) {
  std::vector<std::string> fields;
  std::stringstream ss(line);
  std::string field;
  while (fields.size() < 10 && std::getline(ss, field, ',')) fields.push_back(field);
  for (size_t i = 1; i + 3 < fields.size() && i < 5; ++i)
    if (fields[i] == "exec") {
      *kind = fields[i + 2];
      *impl = fields[i + 3];
      return true;
    }
  return false;
}

}  // namespace rigcheck::cpu::onednn_api
