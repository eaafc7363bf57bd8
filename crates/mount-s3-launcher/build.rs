// Records the exact mountpoint-s3-fs version from Cargo.lock, so `--version` (and every benchmark
// result) names the library that is really linked in.
use std::fs;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = fs::read_to_string("Cargo.lock").unwrap_or_default();
    let version = lock
        .split("[[package]]")
        .find(|block| block.contains("name = \"mountpoint-s3-fs\""))
        .and_then(|block| block.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"').to_string())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=MOUNTPOINT_S3_FS_VERSION={version}");
}
