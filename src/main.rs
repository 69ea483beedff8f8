//! The `power11` command. Everything happens in [`power11::cli`].

fn main() -> std::process::ExitCode {
    power11::cli::main()
}
