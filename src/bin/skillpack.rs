fn main() -> std::process::ExitCode {
    skillpack::cli::main()
}
