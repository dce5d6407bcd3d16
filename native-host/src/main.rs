//! `sightline-host`: Sightline's native messaging host.
//!
//! * Launched by the browser with the extension's origin as its argument, it is the **bridge**
//!   between the extension (native messaging on stdio) and MCP server processes (a private
//!   Unix socket, or a named pipe on Windows).
//! * `sightline-host mcp` is the **MCP server** an agent's client runs on stdio.
//! * `install`, `uninstall` and `doctor` register the host with browsers and check the setup.
//!
//! The modules are grouped by job, and each group uses only the groups below it:
//! [`platform`] (what differs between systems, and the names that pair host and extension) ←
//! [`transport`] (framing, sockets and the messages over them) ← [`bridge`] and [`client`]
//! (the two ends of a bridge socket: the browser's bridge, and the MCP server) ← [`setup`]
//! (`install`, `uninstall`, `doctor`). [`logging`] serves every process.

mod bridge;
mod client;
mod logging;
mod platform;
mod setup;
mod transport;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use client::{bridge_client, mcp};
use platform::Browser;
use setup::{doctor, install};
use sightline_core::protocol::Cap;
use transport::socket;

/// What `--version` says: the version, and which extension and host name it pairs with.
const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (native messaging host dev.sightline.host for the extension pedjfcdnklnogkhfdbajokklfdgehmka)"
);

#[derive(Parser)]
#[command(
    name = "sightline-host",
    version = VERSION_LINE,
    about = "Sightline's native host: bridges the browser extension to MCP clients"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve MCP on stdin/stdout (configure your MCP client to run this).
    Mcp(McpArgs),
    /// Register this binary with browsers as Sightline's native messaging host.
    Install(TargetArgs),
    /// Remove the registration.
    Uninstall(TargetArgs),
    /// Check every link between an MCP client and the browser, and say how to fix a broken one.
    Doctor(TargetArgs),
}

#[derive(clap::Args)]
struct McpArgs {
    /// With several browsers open, use this kind (default: the one whose bridge has run longest).
    #[arg(long, value_enum)]
    browser: Option<Browser>,
    /// With several browsers open, use the one running with this profile directory (its
    /// --user-data-dir; a browser started without one uses its default directory).
    #[arg(long, value_name = "DIR")]
    user_data_dir: Option<PathBuf>,
    /// Longest a tool call may run, in seconds; the browser stops it there and says whether it acted.
    #[arg(long, value_name = "SECONDS", default_value_t = bridge_client::DEFAULT_TIME_LIMIT.as_secs(),
          value_parser = clap::value_parser!(u64).range(5..=600))]
    time_limit: u64,
    /// Optional tool groups to list, comma-separated: `vision` (clicks and drags at coordinates).
    #[arg(long, value_parser = cap_parser(), value_delimiter = ',', value_name = "CAPS")]
    caps: Vec<Cap>,
}

/// Reads a `--caps` group by its name; the possible values are the groups `sightline_core`
/// declares.
fn cap_parser() -> impl clap::builder::TypedValueParser<Value = Cap> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = Cap::ALL.map(|cap| PossibleValue::new(cap.name()).help(cap.help()));
    PossibleValuesParser::new(values)
        .try_map(|name| Cap::from_name(&name).ok_or_else(|| format!("{name} is not a tool group")))
}

impl McpArgs {
    fn options(self) -> mcp::Options {
        mcp::Options {
            socket_dir: socket::socket_dir(),
            choice: bridge_client::Choice { browser: self.browser, user_data_dir: self.user_data_dir },
            time_limit: std::time::Duration::from_secs(self.time_limit),
            caps: self.caps,
        }
    }
}

#[derive(clap::Args)]
struct TargetArgs {
    /// Which browser (default: every one with a profile on this machine).
    #[arg(long, value_enum)]
    browser: Option<BrowserChoice>,
    /// A custom profile directory (the browser's --user-data-dir).
    #[arg(long, value_name = "DIR")]
    user_data_dir: Option<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum BrowserChoice {
    Chrome,
    Chromium,
    Edge,
    Brave,
    Vivaldi,
    All,
}

impl TargetArgs {
    fn targets(self) -> anyhow::Result<Vec<install::Target>> {
        let (browser, all) = match self.browser {
            None => (None, false),
            Some(BrowserChoice::All) => (None, true),
            Some(BrowserChoice::Chrome) => (Some(Browser::Chrome), false),
            Some(BrowserChoice::Chromium) => (Some(Browser::Chromium), false),
            Some(BrowserChoice::Edge) => (Some(Browser::Edge), false),
            Some(BrowserChoice::Brave) => (Some(Browser::Brave), false),
            Some(BrowserChoice::Vivaldi) => (Some(Browser::Vivaldi), false),
        };
        install::targets(browser, all, self.user_data_dir)
    }

    fn explicit(&self) -> bool {
        self.browser.is_some() || self.user_data_dir.is_some()
    }
}

fn main() -> ExitCode {
    // The browser starts a native host as `sightline-host chrome-extension://<id>/ [...]`.
    if let Some(origin) = std::env::args().nth(1).filter(|a| a.starts_with("chrome-extension://")) {
        // Whatever the umask it inherits, what the bridge creates (socket directory, socket,
        // log) is never open to others, not even for an instant.
        platform::system::restrict_umask();
        let _guard = logging::to_file("bridge");
        return report(runtime().and_then(|rt| rt.block_on(bridge::run(&origin))));
    }
    let cli = Cli::parse();
    logging::to_stderr();
    match cli.command {
        Command::Mcp(args) => report(runtime().and_then(|rt| rt.block_on(mcp::run(args.options())))),
        Command::Install(args) => report(args.targets().and_then(|t| install::install(&t)).map(|written| {
            for path in written {
                println!("registered {} in {}", platform::HOST_NAME, path.display());
            }
            println!("Load the extension (chrome://extensions → Load unpacked → target/extension), then run `sightline-host doctor`.");
        })),
        Command::Uninstall(args) => report(args.targets().and_then(|targets| {
            let removed = install::uninstall(&targets)?;
            if removed.is_empty() {
                println!("nothing to remove");
            }
            for path in removed {
                println!("removed {}", path.display());
            }
            for browser in targets.iter().filter_map(|t| t.browser) {
                let sharing = platform::sharing_registration(platform::Os::CURRENT, browser);
                if sharing.len() > 1 {
                    let names: Vec<&str> = sharing.iter().map(|b| b.name()).collect();
                    println!("note: {} share one registration on this system; it is gone for all of them", names.join(", "));
                    break;
                }
            }
            Ok(())
        })),
        Command::Doctor(args) => {
            let explicit = args.explicit();
            let ok = args.targets().and_then(|t| Ok(runtime()?.block_on(doctor::run(t, explicit))));
            match ok {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(e) => report(Err(e)),
            }
        }
    }
}

#[cfg(test)]
#[test]
fn the_version_line_names_the_host_and_the_extension_it_accepts() {
    assert!(VERSION_LINE.contains(platform::HOST_NAME) && VERSION_LINE.contains(platform::browser::EXTENSION_ID));
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?)
}

fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            eprintln!("sightline-host: {e:#}");
            ExitCode::FAILURE
        }
    }
}
