#!/usr/bin/env bash
# Build here, run there: on this CPU machine (the CUDA toolkit in /usr/local/cuda, Debian's build
# dependencies), build every GPU binary that does not need LibTorch, plus `rigcheck`, and lay them
# out in one folder to carry to a GPU machine, where scripts/gpu-check.sh uses it:
#
#   gpu-pack/bin/            rigcheck gpu_gemm gpu_transfer comm_allreduce_nccl (debug info stripped),
#                            NAME.not-built for the rest (gpu_model_memory and gpu_torch_peer are
#                            built there, against that machine's LibTorch)
#   gpu-pack/lib/            the shared libraries they need that a bare CUDA image lacks (fmt, Google
#                            Benchmark, the OpenMP runtime, hwloc, cpuinfo... from ldd), and the C++
#                            runtime (libstdc++, libgcc_s: the binaries need this compiler's GLIBCXX and
#                            CXXABI, which an older image lacks); never the driver's (libcuda,
#                            libnvidia-ml), glibc's, nor the CUDA math libraries and NCCL (hundreds
#                            of MB; the image has them)
#   gpu-pack/share/rigcheck/data/   the registries (every binary finds them at <bin>/../share)
#   gpu-pack/deps/usr/       headers, CMake configs and libraries of fmt, Google Benchmark, CLI11 and
#                            fast-cpp-csv-parser, for the LibTorch build there (no apt there)
#   gpu-pack/deps/fmt-first/ fmt's headers alone, put first on the include path there: LibTorch
#                            ships its own (newer) fmt headers, which must not shadow these
#   gpu-pack/MANIFEST.txt    what was built, from which commit, for which GPUs, what it needs there
#
# The binaries find lib/ through their run path ($ORIGIN/../lib, as DT_RPATH: the libraries' own
# dependencies too), then the CUDA toolkit's folders; the pack stays under 60 MiB (--max-mib).
#
#   scripts/gpu-pack.sh [--out DIR] [--jobs N] [--max-mib N] [--arch "80;90;100;120"]
#   scripts/gpu-pack.sh --from BUILD_DIR --out DIR   # pack an existing build's binaries (the tests)
#
# Exit: 0 packed, 1 failed (one line says what), 2 usage.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/gpu-pack
from=
jobs=$(nproc 2>/dev/null || echo 2)
max_mib=60
arch="80;90;100;120"
die() { echo "gpu-pack: FAILED: $*" >&2; exit 1; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --max-mib) max_mib=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    -h|--help) sed -n 2,30p "$0"; exit 0 ;;
    *) echo "gpu-pack: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $max_mib =~ ^[0-9]+$ ]] || { echo "gpu-pack: --max-mib wants a whole number of MiB" >&2; exit 2; }

# ------------------------------------------------------------------ build (unless --from)
if [[ -z $from ]]; then
  from=$here/build-pack
  command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]] || die "no nvcc (CUDA toolkit in /usr/local/cuda): the GPU binaries cannot be built here"
  export PATH=/usr/local/cuda/bin:$PATH
  echo "gpu-pack: configuring $from (preset gpu-pack, CUDA architectures $arch)" >&2
  cd "$here" && cmake --preset gpu-pack -DCMAKE_CUDA_ARCHITECTURES="$arch" >"$from.configure.log" 2>&1 ||
    { tail -20 "$from.configure.log" >&2; die "configure (log: $from.configure.log)"; }
  echo "gpu-pack: building rigcheck gpu_gemm gpu_transfer comm_allreduce_nccl (-j $jobs)" >&2
  cmake --build "$from" -j "$jobs" --target rigcheck gpu_gemm gpu_transfer \
    $(grep -q '^RIGCHECK_WITH_NCCL:BOOL=ON' "$from/CMakeCache.txt" && echo comm_allreduce_nccl) >"$from.build.log" 2>&1 ||
    { grep -E "error|Error" "$from.build.log" | head -20 >&2; die "build (log: $from.build.log)"; }
fi
bin=$from/bin
[[ -x $bin/rigcheck ]] || die "no $bin/rigcheck: build it first (or leave out --from)"
for b in gpu_gemm gpu_transfer; do
  [[ -x $bin/$b ]] || die "no $bin/$b: $(cat "$bin/$b.not-built" 2>/dev/null || echo 'not built') (the pack is for GPU machines)"
done

# ------------------------------------------------------------------ lay out
case $out in /|"$here"|"$HOME") die "refusing --out $out" ;; esac
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/share/rigcheck" "$out/deps" || die "cannot create $out"
packed=(rigcheck gpu_gemm gpu_transfer)
[[ -x $bin/comm_allreduce_nccl ]] && packed+=(comm_allreduce_nccl)
for b in "${packed[@]}"; do
  cp -L "$bin/$b" "$out/bin/$b" || die "copy of $b"
  command -v strip >/dev/null && strip --strip-debug "$out/bin/$b"
done
# The run path without empty entries: CMake ends a build tree's run path with a separator (room for
# its install-time rewrite), and glibc reads an empty entry as the current folder. Rewritten in
# place (the string only shortens: the bytes after it become NULs), as CMake's own rewrite does.
for b in "${packed[@]}"; do
  rp=$(readelf -d "$out/bin/$b" 2>/dev/null | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p' | head -1)
  [[ -n $rp ]] || continue
  clean=$(tr ':' '\n' <<<"$rp" | grep -v '^$' | paste -sd:)
  [[ $clean == "$rp" ]] && continue
  OLD=$rp NEW=$clean perl -0777 -pi -e '
    my ($o, $n) = ($ENV{OLD} . "\0", $ENV{NEW} . "\0");
    my $count = () = /\Q$o\E/g;
    die "the run path occurs $count times\n" unless $count == 1;
    s/\Q$o\E/$n . ("\0" x (length($o) - length($n)))/e;' "$out/bin/$b" || die "rewriting the run path of $b"
  rp=$(readelf -d "$out/bin/$b" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p' | head -1)
  [[ $rp == "$clean" ]] || die "the run path of $b is '$rp' after the rewrite, not '$clean'"
done
for f in "$bin"/*.not-built; do
  [[ -e $f ]] && cp "$f" "$out/bin/"
done
for b in gpu_model_memory gpu_torch_peer; do
  rm -f "$out/bin/$b"
  printf %s "needs LibTorch: built on the GPU machine against its PyTorch by scripts/gpu-check.sh" >"$out/bin/$b.not-built"
done
for b in "${packed[@]}"; do rm -f "$out/bin/$b.not-built"; done
cp -rL "$here/data" "$out/share/rigcheck/data" || die "copy of data/"

# Libraries: everything ldd resolves outside what every GPU image has.
#  glibc (every image), the driver's (the GPU machine's own), the CUDA
#  libraries and NCCL (its toolkit or PyTorch's pip wheels; far too big to carry).
from_image='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libcuda|libnvidia-|libcudart|libcublas|libcublasLt|libnccl|libcudnn|libnvrtc|libnvJitLink)\.'
needs_there=()
while read -r name arrow path _; do
  [[ $arrow == "=>" ]] || continue
  if [[ $name =~ $from_image ]]; then
    [[ $name =~ ^(libcublas|libnccl|libcudart|libcudnn) ]] && needs_there+=("$name")
    continue
  fi
  [[ $path == "not" ]] && die "$name is not found here (ldd of the pack's binaries)"
  [[ -e $out/lib/$name ]] || cp -L "$path" "$out/lib/$name" || die "copy of $path"
done < <(for b in "${packed[@]}"; do ldd "$out/bin/$b"; done | sort -u)
for f in "$out"/lib/*; do [[ -e $f ]] && command -v strip >/dev/null && strip --strip-debug "$f" 2>/dev/null; done

# The LibTorch build there: headers, CMake configs and libraries laid out as under /usr (their
# configs find the files relative to themselves).
ml=lib/x86_64-linux-gnu
for p in include/fmt include/benchmark include/CLI include/libfccp $ml/cmake/fmt $ml/cmake/benchmark share/cmake/CLI11; do
  [[ -e /usr/$p ]] || die "/usr/$p is absent here (install the Debian dev packages: scripts/setup.sh)"
  mkdir -p "$out/deps/usr/$(dirname "$p")"
  cp -a "/usr/$p" "$out/deps/usr/$p"
done
mkdir -p "$out/deps/usr/$ml" "$out/deps/fmt-first"
cp -a /usr/$ml/libfmt.so* /usr/$ml/libbenchmark.so* /usr/$ml/libbenchmark_main.a "$out/deps/usr/$ml/" || die "copy of fmt/benchmark libraries"
cp -a /usr/include/fmt "$out/deps/fmt-first/fmt"

# ------------------------------------------------------------------ manifest, size
# The floors gpu-check.sh compares with the GPU machine first: the newest GLIBC_ symbol version any
# packed file asks for (and which file), and the CUDA runtime linked in (a driver older than its
# CUDA major version refuses it).
glibc_file=
glibc=
for f in "$out"/bin/* "$out"/lib/*; do
  [[ -f $f && ! $f == *.not-built ]] || continue
  v=$(objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -1)
  [[ -n $v ]] || continue
  if [[ $v == "$glibc" ]]; then
    glibc_file+=", ${f#"$out"/}"
  elif [[ -z $glibc || $(printf '%s\n%s\n' "$glibc" "$v" | sort -V | tail -1) != "$glibc" ]]; then
    glibc=$v glibc_file=${f#"$out"/}
  fi
done
glibcxx=$(for f in "$out"/bin/* "$out"/lib/*; do [[ -f $f && ! $f == *.not-built ]] && objdump -T "$f" 2>/dev/null; done |
          grep -o 'GLIBCXX_[0-9][0-9.]*' | sort -uV | tail -1)
cuda_arch=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$from/CMakeCache.txt" 2>/dev/null)
nvcc_version=$( (command -v nvcc >/dev/null && nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null | tail -1)
cuda_release=$( (command -v nvcc >/dev/null && nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null |
               sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -1)
{
  echo "rigcheck GPU pack"
  echo "commit: $(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$here" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), from $from"
  echo "CUDA: ${nvcc_version:-unknown}; architectures: ${cuda_arch:-unknown}"
  echo "binaries: ${packed[*]}"
  echo "carried libraries: $(cd "$out/lib" && ls | tr '\n' ' ')"
  echo "needed from the GPU machine: the NVIDIA driver (libcuda.so.1, libnvidia-ml.so.1), $(printf '%s\n' "${needs_there[@]}" | sort -u | tr '\n' ' ')"
  echo "  (looked for in its run path: /usr/local/cuda/lib64, then LD_LIBRARY_PATH: gpu-check.sh adds pip's nvidia/*/lib)"
  echo "needs at least: ${glibc:-?} (the image's glibc); libstdc++ (${glibcxx:-?}) and libgcc_s are carried in lib/"
  echo "needs glibc: ${glibc#GLIBC_} ($glibc, by $glibc_file)"
  echo "needs driver CUDA: ${cuda_release:-unknown} (the CUDA runtime ${cuda_release:-?}, linked statically;" \
    "a driver of the same major version or newer)"
} >"$out/MANIFEST.txt"
size=$(du -sb "$out" | cut -f1)
mib=$(( (size + 1048575) / 1048576 ))
echo "size: $mib MiB" >>"$out/MANIFEST.txt"
if (( size > max_mib * 1048576 )); then
  du -sh "$out"/bin/* "$out"/lib/* 2>/dev/null | sort -h | tail -5 >&2
  die "the pack is $mib MiB, over the limit of $max_mib MiB (--max-mib)"
fi
echo "gpu-pack: $out ($mib MiB): carry it to the GPU machine beside the source tree and run scripts/gpu-check.sh there" >&2
