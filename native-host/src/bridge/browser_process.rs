//! Which browser and profile started this bridge, read from the parent process.
//!
//! A browser starts its native hosts itself, so the bridge's parent is the browser process:
//! its executable names the browser, and its command line the `--user-data-dir` (the profile)
//! when one was given; otherwise that browser's default directory is the profile. With several
//! browsers or profiles open, this is what `sightline-host mcp --browser/--user-data-dir`
//! chooses by. Nothing here is trusted for access control: it only tells bridges apart.

use std::path::{Path, PathBuf};

use crate::platform::Browser;
use crate::transport::link::BrowserProcess;

/// The browser process that started this one, if the parent can be read (Linux `/proc`).
pub fn parent() -> Option<BrowserProcess> {
    let pid = crate::platform::system::parent_pid()?;
    let proc_dir = PathBuf::from(format!("/proc/{pid}"));
    let executable = std::fs::read_link(proc_dir.join("exe")).ok();
    let cmdline = std::fs::read(proc_dir.join("cmdline")).ok().unwrap_or_default();
    let args: Vec<String> =
        cmdline.split(|b| *b == 0).filter(|a| !a.is_empty()).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
    let cwd = std::fs::read_link(proc_dir.join("cwd")).ok();
    Some(identify(pid, executable.as_deref(), &args, cwd.as_deref()))
}

/// What a browser process is, from its executable, arguments and working directory.
fn identify(pid: u32, executable: Option<&Path>, args: &[String], cwd: Option<&Path>) -> BrowserProcess {
    let browser = executable.and_then(browser_of).or_else(|| args.first().and_then(|a| browser_of(Path::new(a))));
    let given = user_data_dir_argument(args).map(|dir| match cwd {
        Some(cwd) if dir.is_relative() => cwd.join(dir),
        _ => dir,
    });
    let user_data_dir = given.or_else(|| browser.and_then(Browser::profile_root));
    BrowserProcess { pid, browser: browser.map(|b| b.name().to_owned()), user_data_dir }
}

/// The browser an executable belongs to, by its file name.
fn browser_of(executable: &Path) -> Option<Browser> {
    let name = executable.file_name()?.to_string_lossy().to_lowercase();
    let path = executable.to_string_lossy().to_lowercase();
    if name.contains("chromium") {
        Some(Browser::Chromium)
    } else if name.contains("msedge") || path.contains("microsoft/msedge") || path.contains("microsoft-edge") {
        Some(Browser::Edge)
    } else if name.contains("brave") {
        Some(Browser::Brave)
    } else if name.contains("vivaldi") {
        Some(Browser::Vivaldi)
    } else if name.contains("chrome") {
        Some(Browser::Chrome)
    } else {
        None
    }
}

/// `--user-data-dir=DIR` or `--user-data-dir DIR` among a browser's arguments.
fn user_data_dir_argument(args: &[String]) -> Option<PathBuf> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if let Some(dir) = arg.strip_prefix("--user-data-dir=") {
            return Some(PathBuf::from(dir));
        }
        if arg == "--user-data-dir" {
            return args.next().map(PathBuf::from);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn a_chromium_with_a_user_data_dir_is_that_profile() {
        let process = identify(
            42,
            Some(Path::new("/usr/lib/chromium/chromium")),
            &args(&["/usr/lib/chromium/chromium", "--headless", "--user-data-dir=/tmp/p1", "about:blank"]),
            None,
        );
        assert_eq!(
            process,
            BrowserProcess { pid: 42, browser: Some("chromium".into()), user_data_dir: Some("/tmp/p1".into()) }
        );
        assert_eq!(process.to_string(), "chromium with profile /tmp/p1 (pid 42)");
    }

    #[test]
    fn a_relative_user_data_dir_is_taken_from_the_browsers_working_directory() {
        let process = identify(
            7,
            Some(Path::new("/opt/google/chrome/chrome")),
            &args(&["chrome", "--user-data-dir", "work"]),
            Some(Path::new("/home/u")),
        );
        assert_eq!(process.browser.as_deref(), Some("chrome"));
        assert_eq!(process.user_data_dir, Some(PathBuf::from("/home/u/work")));
    }

    #[test]
    fn without_a_user_data_dir_the_browsers_default_profile_is_used() {
        let process = identify(7, Some(Path::new("/opt/microsoft/msedge/msedge")), &args(&["msedge"]), None);
        assert_eq!(process.browser.as_deref(), Some("edge"));
        assert_eq!(process.user_data_dir, Browser::Edge.profile_root());
    }
}
