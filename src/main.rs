//! The `power11` command. Everything happens in [`power11::main`].

fn main() -> std::process::ExitCode {
    power11::main()
}
