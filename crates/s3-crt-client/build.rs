// Records the exact mountpoint-s3-client and mountpoint-s3-crt-sys versions from Cargo.lock, so
// `--version` (and every benchmark result) names the CRT build that is really linked in.
use std::fs;

fn locked(lock: &str, name: &str) -> String {
    lock.split("[[package]]")
        .find(|block| block.contains(&format!("name = \"{name}\"\n")))
        .and_then(|block| block.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"').to_string())
        .unwrap_or_else(|| "unknown".to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = fs::read_to_string("Cargo.lock").unwrap_or_default();
    println!("cargo:rustc-env=MOUNTPOINT_S3_CLIENT_VERSION={}", locked(&lock, "mountpoint-s3-client"));
    println!("cargo:rustc-env=MOUNTPOINT_S3_CRT_SYS_VERSION={}", locked(&lock, "mountpoint-s3-crt-sys"));
}
