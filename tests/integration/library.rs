//! The library as a dependency: what it costs to build without the program.

/// The crates a library user compiles with `default-features = false`.
fn core_dependencies() -> String {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "tree",
            "--no-default-features",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_core_library_needs_no_cli_thread_pool_or_file_crates() {
    let tree = core_dependencies();
    for heavy in [
        "clap",
        "rayon",
        "indicatif",
        "directories",
        "anyhow",
        "serde",
        "tempfile",
    ] {
        let found = tree
            .lines()
            .any(|line| line.starts_with(&format!("{heavy} ")));
        assert!(!found, "{heavy} is in the core library's tree:\n{tree}");
    }
    for needed in ["rand_chacha ", "thiserror ", "rustc-hash "] {
        assert!(tree.contains(needed), "{needed}missing:\n{tree}");
    }
}
