//! `cargo xtask serve | test | dist | bench`: installs the tools a fresh machine lacks, then
//! builds, serves, tests and measures. Every install is guarded by a version check, so a warm machine skips it.
//!
//! Tools (recipe and measured times: `shared/reference/toolchain.md`):
//! - the `wasm32-unknown-unknown` target (rustup);
//! - `wasm-bindgen-cli` at exactly the version Cargo.lock pins (`cargo install`, not `--locked`);
//! - trunk 0.21.14 (`cargo install --locked`; 0.22 needs a newer rustc);
//! - wasm-pack 0.15.1 (`cargo install --locked`), run with `--mode no-install` so it uses the
//!   wasm-bindgen above and downloads nothing (wasm-opt is off in `web/Cargo.toml`);
//! - node packages from `package-lock.json`: binaryen (wasm-opt 132) and playwright-core;
//! - Debian's chromium (apt, when root) for the browser tests.

mod bench;
mod page;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

const TRUNK_VERSION: &str = "0.21.14";
const WASM_PACK_VERSION: &str = "0.15.1";
const CHROMIUM: &str = "/usr/bin/chromium";

type Result<T> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("serve") => serve(&args[1..]),
        Some("test") => test(),
        Some("lint") => lint(),
        Some("calibrate") => run(cmd("cargo").args([
            "run",
            "-q",
            "-p",
            "fabricscope-cli",
            "--",
            "calibrate",
            "tests/calibration.json",
        ])),
        Some("dist") => dist().map(|_| ()),
        Some("bench") => bench::bench(),
        _ => Err("usage: cargo xtask serve [--port N] | test | lint | calibrate | dist | bench".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/xtask is two levels down")
        .to_path_buf()
}

/// PATH with the repo's node tools (binaryen's wasm-opt) and cargo's bin dir first.
fn tool_path() -> String {
    let mut parts = vec![root().join("node_modules/.bin").display().to_string()];
    if let Some(home) = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
    {
        parts.push(home.join("bin").display().to_string());
    }
    parts.push(std::env::var("PATH").unwrap_or_default());
    parts.join(":")
}

fn cmd(program: &str) -> Command {
    let mut command = Command::new(program);
    command.current_dir(root()).env("PATH", tool_path());
    command
}

fn run(command: &mut Command) -> Result<()> {
    eprintln!("$ {}", describe(command));
    let status = command.status().map_err(|e| format!("cannot start {}: {e}", describe(command)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} failed ({status})", describe(command)))
    }
}

fn describe(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|s| s.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first line a tool prints for `--version`, or "" when it is missing.
fn version_of(program: &str) -> String {
    cmd(program)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).lines().next().unwrap_or_default().to_string())
        .unwrap_or_default()
}

/// The wasm-bindgen version Cargo.lock pins; the CLI must match it exactly.
fn locked_wasm_bindgen() -> Result<String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).map_err(|e| format!("Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"wasm-bindgen\"" {
            if let Some(version) = lines.next().and_then(|l| l.strip_prefix("version = \"")) {
                return Ok(version.trim_end_matches('"').to_string());
            }
        }
    }
    Err("Cargo.lock has no wasm-bindgen".into())
}

fn ensure_build_tools() -> Result<()> {
    let started = Instant::now();
    let targets =
        cmd("rustup").args(["target", "list", "--installed"]).output().map_err(|e| format!("rustup: {e}"))?;
    if !String::from_utf8_lossy(&targets.stdout).lines().any(|l| l == "wasm32-unknown-unknown") {
        run(cmd("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    let bindgen = locked_wasm_bindgen()?;
    if !version_of("wasm-bindgen").ends_with(&format!(" {bindgen}")) {
        run(cmd("cargo").args(["install", "wasm-bindgen-cli", "--version", &bindgen]))?;
    }
    if !version_of("trunk").ends_with(&format!(" {TRUNK_VERSION}")) {
        run(cmd("cargo").args(["install", "--locked", "trunk", "--version", TRUNK_VERSION]))?;
    }
    if !version_of("wasm-pack").ends_with(&format!(" {WASM_PACK_VERSION}")) {
        run(cmd("cargo").args(["install", "--locked", "wasm-pack", "--version", WASM_PACK_VERSION]))?;
    }
    let stamp = root().join("node_modules/.package-lock.json");
    let fresh = match (std::fs::metadata(&stamp), std::fs::metadata(root().join("package-lock.json"))) {
        (Ok(installed), Ok(lock)) => installed.modified().ok() >= lock.modified().ok(),
        _ => false,
    };
    if !fresh || !root().join("node_modules/.bin/wasm-opt").exists() {
        run(cmd("npm").args(["ci", "--no-audit", "--no-fund"]))?;
    }
    eprintln!("xtask: build tools ready ({:.1} s)", started.elapsed().as_secs_f64());
    Ok(())
}

/// The house rules a reviewer should not have to check: formatting, and clippy with warnings
/// as errors on every target, natively and for the page's and the package's wasm builds.
fn lint() -> Result<()> {
    let started = Instant::now();
    if version_of("rustfmt").is_empty()
        || cmd("cargo").args(["clippy", "--version"]).output().map_or(true, |o| !o.status.success())
    {
        run(cmd("rustup").args(["component", "add", "rustfmt", "clippy"]))?;
    }
    run(cmd("cargo").args(["fmt", "--all", "--check"]))?;
    run(cmd("cargo").args(["clippy", "--workspace", "--all-targets", "--quiet", "--", "-D", "warnings"]))?;
    // The page's module, and the embeddable package's (without the workers' entry points).
    for features in [None, Some("--no-default-features")] {
        let mut args =
            vec!["clippy", "-p", "fabricscope-web", "--target", "wasm32-unknown-unknown", "--quiet"];
        args.extend(features);
        args.extend(["--", "-D", "warnings"]);
        run(cmd("cargo").args(args))?;
    }
    eprintln!("xtask: fmt and clippy clean ({:.0} s)", started.elapsed().as_secs_f64());
    Ok(())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn ensure_browser() -> Result<()> {
    let cjk_font = Path::new("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc");
    if Path::new(CHROMIUM).exists() && cjk_font.exists() {
        return Ok(());
    }
    if !is_root() {
        if Path::new(CHROMIUM).exists() {
            return Ok(()); // Chinese text still renders as text; only screenshots miss the glyphs.
        }
        return Err(format!(
            "the browser tests need Debian's chromium at {CHROMIUM}: run `sudo apt-get install chromium chromium-driver fonts-wqy-zenhei`"
        ));
    }
    run(Command::new("apt-get").args(["update", "-q"]))?;
    run(Command::new("apt-get").env("DEBIAN_FRONTEND", "noninteractive").args([
        "install",
        "-y",
        "-q",
        "--no-install-recommends",
        "chromium",
        "chromium-driver",
        "fonts-wqy-zenhei",
    ]))
}

fn trunk_build() -> Result<()> {
    run(cmd("trunk").args(["build", "--release", "--offline"]))?;
    page::add_lesson_list(&root().join("dist/index.html"), &root().join("web/lessons.json"))?;
    page::add_content_security_policy(&root().join("dist/index.html"))?;
    // The embeddable package (`simulate`, `Figure`) beside the page, for `<fabricscope-figure>`.
    let pkg = root().join("dist/pkg");
    let pkg_arg = pkg.to_string_lossy().into_owned();
    run(cmd("wasm-pack").args([
        "build",
        "web",
        "--target",
        "web",
        "--profile",
        "wasm-release",
        "--mode",
        "no-install",
        "--out-name",
        "fabricscope",
        "--out-dir",
        pkg_arg.as_str(),
        "--",
        "--no-default-features",
    ]))
}

fn dist() -> Result<PathBuf> {
    dist_sized().map(|(dist, _)| dist)
}

/// Builds `dist/` and returns it with the gzip size of its wasm, js and css [B].
fn dist_sized() -> Result<(PathBuf, u64)> {
    ensure_build_tools()?;
    trunk_build()?;
    let dist = root().join("dist");
    let (mut raw, mut gzipped) = (0u64, 0u64);
    for entry in std::fs::read_dir(&dist).map_err(|e| format!("dist: {e}"))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
        if matches!(ext, "wasm" | "js" | "css") {
            raw += std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            let gz = Command::new("gzip")
                .args(["-9", "-c"])
                .arg(&path)
                .output()
                .map_err(|e| format!("gzip: {e}"))?;
            gzipped += gz.stdout.len() as u64;
        }
    }
    eprintln!("xtask: dist/ wasm + js + css: {raw} B raw, {gzipped} B gzip -9");
    Ok((dist, gzipped))
}

fn serve(args: &[String]) -> Result<()> {
    let port = match args {
        [] => "8080".to_string(),
        [flag, port] if flag == "--port" => port.clone(),
        _ => return Err("usage: cargo xtask serve [--port N]".into()),
    };
    // The page as the tests see it: its Content-Security-Policy and the embeddable package
    // beside it (`embed-example.html`). For live reload while editing, `trunk serve`.
    let dist = dist()?;
    let listener = TcpListener::bind(format!("127.0.0.1:{port}"))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    eprintln!("xtask: serving {} on http://127.0.0.1:{port}/ (Ctrl-C stops)", dist.display());
    serve_static(listener, dist);
    Ok(())
}

fn test() -> Result<()> {
    let started = Instant::now();
    ensure_build_tools()?;
    ensure_browser()?;
    lint()?;
    run(cmd("cargo").args(["test", "--workspace", "--quiet"]))?;
    let dist = dist()?;
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot listen on loopback: {e}"))?;
    let url = format!("http://{}/", listener.local_addr().map_err(|e| e.to_string())?);
    std::thread::spawn(move || serve_static(listener, dist));
    let shots = root().join("tests/e2e/out");
    let hashes = native_hashes(&shots)?;
    let result = run(cmd("node")
        .arg("tests/e2e/run.mjs")
        .arg(&url)
        .arg(&shots)
        .env("CHROMIUM_BIN", CHROMIUM)
        .env("FABRICSCOPE_NATIVE_HASHES", &hashes));
    clean_chromium_temp();
    result?;
    eprintln!(
        "xtask: all tests passed in {:.0} s; screenshots in {}",
        started.elapsed().as_secs_f64(),
        shots.display()
    );
    Ok(())
}

/// Simulates every scenario fixture natively and writes `[{name, scenario, hash}]` for the
/// browser test that loads each in the page (WASM) and compares the trace hash it shows.
fn native_hashes(out: &Path) -> Result<PathBuf> {
    let dir = root().join("tests/fixtures");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    entries.sort();
    let mut list = Vec::new();
    for path in entries {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let scenario =
            fabricscope::Scenario::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let valid = scenario.validate().map_err(|e| format!("{}: {e:?}", path.display()))?;
        let hash = fabricscope::simulate(&valid).map_err(|e| e.to_string())?.hash_hex();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        list.push(serde_json::json!({ "name": name, "scenario": scenario, "hash": hash }));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let file = out.join("native-hashes.json");
    std::fs::write(&file, serde_json::to_string_pretty(&list).map_err(|e| e.to_string())?)
        .map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(file)
}

/// Chromium leaves `org.chromium.Chromium.*` folders in the temp dir; remove ours.
fn clean_chromium_temp() {
    let tmp = std::env::temp_dir();
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with("org.chromium.Chromium.") {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// A minimal static file server for the browser tests: GET only, loopback only, one
/// connection at a time, `Connection: close`.
/// Serves `dir`, each connection on a thread of its own: a browser opens connections ahead of
/// its requests and may leave one idle, which a server answering one connection at a time
/// waits on while the page's other requests (its workers' scripts) queue behind it; the
/// browser tests timed out so now and then (a page load of 30 s, a worker never started).
fn serve_static(listener: TcpListener, dir: PathBuf) {
    let dir = std::sync::Arc::new(dir);
    for stream in listener.incoming().flatten() {
        let dir = std::sync::Arc::clone(&dir);
        std::thread::spawn(move || {
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(60)));
            let _ = respond(stream, &dir);
        });
    }
}

fn respond(mut stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" {
            break;
        }
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/").split(['?', '#']).next().unwrap_or("/");
    let relative = if path.ends_with('/') { format!("{path}index.html") } else { path.to_string() };
    let safe = !relative.split('/').any(|part| part == "..");
    let file = dir.join(relative.trim_start_matches('/'));
    let (status, body, kind) = match std::fs::File::open(&file).and_then(|mut f| {
        let mut body = Vec::new();
        f.read_to_end(&mut body).map(|_| body)
    }) {
        Ok(body) if safe => ("200 OK", body, content_type(&file)),
        _ => ("404 Not Found", b"not found".to_vec(), "text/plain"),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript",
        "wasm" => "application/wasm",
        "css" => "text/css",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}
