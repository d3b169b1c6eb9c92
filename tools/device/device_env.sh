# Sourced first by the device check scripts (`source "$(dirname "$0")/device_env.sh"`):
# strict-ish bash, the repository root as the working directory, $OUT (the folder whose
# files come back), $LOGS (logs that stay on the machine) and $build (the build folder).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-out}
LOGS=/tmp/tt-logs
mkdir -p "$OUT" "$LOGS"
build=${TT_BUILD_DIR:-build-device}
