#!/usr/bin/env bash
# run.sh [--quick] [REPORT]: the GPU check of a folder built by scripts/gpu-check (which copies this file
# there as run.sh), on an x86-64 Linux machine with a GPU and no Go toolchain. In order, each part under
# a time limit (about 2.5 minutes in all on an NVIDIA H100 before the gputrain parts were added; the limits add up to 9):
#   1. the GPU suite: the test binaries of ./gpu and ./gputrain (all of them; gputrain's 150-iteration
#      run too), ./cmd/dlca-bench, and the GPU tests of ./cmd/mnist and ./cmd/internal/mnist, with
#      DLCA_REQUIRE_GPU=1 (no adapter is a failure);
#   2. the benchmarks of docs/PERFORMANCE.md: dlca-bench -engines cpu,gpu,graph (the checkerboard iteration
#      on the CPU, the recorded engine and the captured autograd step, and the autograd op rows), the CPU rows again at GOMAXPROCS=1,2,4,8,16 (the scaling of issue 32), and
#      mnist -device gpu -epochs 1 for the MLP and the CNN;
#   3. dlca train -experiment checkerboard -device gpu, and -device gpu-autograd: the README's 500
#      iterations on each GPU path.
# Everything goes into one report file (default report-<date>.txt beside this script): the machine, its
# GPU and driver, the commit, every part's output, and a summary table at the end.
#
# --quick shortens part 2 and 3 (small grids and matrices, a subset of MNIST, 3 training iterations) and
# multiplies every time limit by 10 (or by GPU_CHECK_TIMEOUT_SCALE): for a software adapter such as
# lavapipe, on which the full run would take hours. The suite itself runs whole either way.
set -u
here=$(cd "$(dirname "$0")" && pwd)
quick=0
report=""
for arg in "$@"; do
	case "$arg" in
	--quick) quick=1 ;;
	-h | --help)
		sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	-*) echo "run.sh: unknown flag $arg (--quick, or a report file name)" >&2; exit 2 ;;
	*) report=$arg ;;
	esac
done
scale=${GPU_CHECK_TIMEOUT_SCALE:-1}
if [ "$quick" = 1 ] && [ -z "${GPU_CHECK_TIMEOUT_SCALE:-}" ]; then
	scale=10
fi
stamp=$(date -u +%Y%m%dT%H%M%SZ)
report=${report:-$here/report-$stamp.txt}
case "$report" in /*) ;; *) report=$PWD/$report ;; esac
: >"$report" || exit 1

# The Vulkan loader: the machine's own where it has one, else the bundled copy of Debian's.
loader="the machine's"
if ! { ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '; } &&
	! ls /usr/lib/x86_64-linux-gnu/libvulkan.so.1 /usr/lib64/libvulkan.so.1 /usr/lib/libvulkan.so.1 >/dev/null 2>&1; then
	export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	loader="the bundled one ($here/lib/libvulkan.so.1; the machine has none)"
fi
export DLCA_REQUIRE_GPU=1
export GOMODCACHE="$here/gomodcache" # where the mnist binaries find the digits without a go command
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
	XDG_RUNTIME_DIR=$(mktemp -d)
	export XDG_RUNTIME_DIR # Mesa's warning otherwise
fi
mnist_data=$(ls -d "$here"/gomodcache/*/*/*/data 2>/dev/null | head -n1)

say() { echo "$*" | tee -a "$report"; }

# part NAME LIMIT DIR COMMAND...: runs COMMAND in DIR under LIMIT seconds (times the scale), its output
# into the report, and adds a row to the summary.
summary=""
failed=0
part() {
	local name=$1 limit=$(($2 * scale)) dir=$3
	shift 3
	local where=${dir#"$here"}
	say "=== $name: $* (in .${where}, limit ${limit} s)"
	local start end rc
	start=$(date +%s%N)
	(cd "$dir" && timeout -k 10 "$limit" "$@") >>"$report" 2>&1
	rc=$?
	end=$(date +%s%N)
	local secs
	secs=$(awk "BEGIN { printf \"%.1f\", ($end - $start) / 1e9 }")
	local verdict=ok
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		verdict="TIMED OUT after ${limit} s"
		failed=1
	elif [ "$rc" != 0 ]; then
		verdict="FAILED (exit $rc)"
		failed=1
	fi
	say "=== $name: $verdict, ${secs} s"
	summary+=$(printf '%-34s %8s s  %s' "$name" "$secs" "$verdict")$'\n'
}

{
	echo "GPU check of $(head -n1 "$here/BUILD")"
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "machine: $(uname -n), $(uname -srm), $(nproc) CPU threads, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) memory"
	echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
	if command -v nvidia-smi >/dev/null 2>&1; then
		echo "gpu (nvidia-smi): $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | paste -sd';')"
	fi
	if command -v vulkaninfo >/dev/null 2>&1; then
		vulkaninfo --summary 2>/dev/null | grep -E 'deviceName|driverName|driverInfo|apiVersion' | sed 's/^[[:space:]]*/vulkan: /'
	fi
	echo "vulkan loader: $loader"
	echo "mode: $([ "$quick" = 1 ] && echo "--quick (short benchmarks, limits x$scale)" || echo "full (limits x$scale)")"
	echo "build: $(sed -n '2,$p' "$here/BUILD" | paste -sd';')"
	echo
} >>"$report"
cat "$report"

# 1. The GPU suite. The adapter the tests use is printed by dlca-bench below.
part "suite ./gpu" 120 "$here/pkg/gpu" ./gpu.test -test.count=1 -test.timeout $((110 * scale))s -test.v
part "suite ./gputrain" 40 "$here/pkg/gputrain" env DLCA_GPU_LONG=1 ./gputrain.test -test.count=1 -test.timeout $((35 * scale))s -test.v
part "suite ./cmd/dlca-bench" 30 "$here/pkg/cmd/dlca-bench" ./dlca-bench.test -test.count=1 -test.short -test.v
part "suite ./cmd/mnist (GPU tests)" 15 "$here/pkg/cmd/mnist" ./mnist.test -test.count=1 -test.short -test.v -test.run 'TestDeviceGPU'
part "suite ./cmd/internal/mnist (GPU tests)" 45 "$here/pkg/cmd/internal/mnist" env PATH="$here/shim:$PATH" ./mnist.test -test.count=1 -test.short -test.v \
	-test.run 'TestMoveParameters|TestTrajectoryParity|TestSubsetDevicesAgree'

# 2. The benchmarks.
bench=(-iterations 20 -warmup 3)
cpu_bench=(-iterations 3 -warmup 1)
mnist_args=()
if [ "$quick" = 1 ]; then
	bench=(-height 4 -width 4 -steps 1 -iterations 1 -warmup 0 -matmul 128 -conv-batch 2 -conv-size 8)
	cpu_bench=("${bench[@]}")
	mnist_args=(-subset 512)
fi
part "dlca-bench cpu,gpu,graph" 45 "$here" bin/dlca-bench -engines cpu,gpu,graph "${bench[@]}"
for procs in 1 2 4 8 16; do
	if [ "$procs" -gt "$(nproc)" ] || { [ "$quick" = 1 ] && [ "$procs" -gt 2 ]; }; then
		summary+=$(printf '%-34s %8s    %s' "dlca-bench cpu GOMAXPROCS=$procs" - "skipped ($(nproc) CPU threads$([ "$quick" = 1 ] && echo ', --quick'))")$'\n'
		continue
	fi
	part "dlca-bench cpu GOMAXPROCS=$procs" 15 "$here" env GOMAXPROCS=$procs bin/dlca-bench -engines cpu "${cpu_bench[@]}"
done
part "mnist mlp gpu 1 epoch" 30 "$here" bin/mnist -device gpu -epochs 1 -model mlp -data "$mnist_data" "${mnist_args[@]}"
part "mnist cnn gpu 1 epoch" 40 "$here" bin/mnist -device gpu -epochs 1 -model cnn -data "$mnist_data" "${mnist_args[@]}"

# 3. The README's checkerboard, 500 iterations.
train=()
if [ "$quick" = 1 ]; then
	train=(-iterations 3)
fi
run_dir=$(mktemp -d)
part "checkerboard train gpu" 60 "$here" bin/dlca train -experiment checkerboard -device gpu -out "$run_dir/checkerboard" "${train[@]}"
part "checkerboard train gpu-autograd" 40 "$here" bin/dlca train -experiment checkerboard -device gpu-autograd -out "$run_dir/checkerboard-autograd" "${train[@]}"
rm -rf "$run_dir"

{
	echo
	echo "=== summary"
	printf '%s' "$summary"
	fails=$(grep -E -- '^\s*--- FAIL' "$report" | sed 's/ (.*//' | sort -u)
	if [ -n "$fails" ]; then
		echo "failed tests:"
		echo "$fails"
	fi
	echo "adapter: $(grep -m1 '^gpu device:' "$report" | sed 's/^gpu device: //')"
	echo "checkerboard: $(grep -m1 '^trained checkerboard' "$report" || echo 'no result')"
	echo "report: $report"
} | tee -a "$report"
exit $failed
