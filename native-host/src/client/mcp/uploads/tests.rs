//! The upload checks on real files, links and directories in a home of the test's own.
#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use super::*;
use crate::platform::Env;

/// A throwaway home, removed when dropped.
struct Home(PathBuf);

impl Home {
    fn new(name: &str) -> Home {
        let dir = std::env::temp_dir().join(format!("sightline-uploads-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // The checks compare resolved paths: the test's own must be resolved too.
        Home(dir.canonicalize().unwrap())
    }

    /// Writes `text` to `relative`, creating its directories; its path.
    fn file(&self, relative: &str, text: &str) -> String {
        let path = self.0.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        text_of(&path)
    }

    /// A symbolic link at `relative` to `target`; its path.
    fn link(&self, relative: &str, target: &str) -> String {
        let path = self.0.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        symlink(target, &path).unwrap();
        text_of(&path)
    }

    /// The user's directories with this home, and `config` as `$XDG_CONFIG_HOME` when given.
    fn homes(&self, config: Option<&str>) -> Homes {
        let env = Env { home: Some(self.0.clone()), xdg_config_home: config.map(|c| self.0.join(c)), ..Env::default() };
        Homes { env, app_data: None }
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn text_of(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn upload(homes: &Homes, path: &str) -> Result<Vec<String>, String> {
    check_on(Os::Linux, homes, &[path.to_owned()])
}

#[test]
fn only_absolute_paths_to_ordinary_readable_files_pass() {
    let home = Home::new("plain");
    let homes = home.homes(None);
    let ok = home.file("Documents/report.txt", "hello");
    assert_eq!(check_on(Os::Linux, &homes, std::slice::from_ref(&ok)), Ok(vec![ok.clone()]));
    assert_eq!(check_on(Os::Linux, &homes, &[]), Ok(vec![]), "no paths clears the input");

    let refused = |p: &str| upload(&homes, p).unwrap_err();
    let relative = refused("report.txt");
    assert!(relative.contains("not an absolute path") && relative.contains("/home/me/report.pdf"), "{relative}");
    assert!(refused(&format!("{}/missing.txt", home.0.display())).contains("there is no file"));
    assert!(refused(&text_of(&home.0.join("Documents"))).contains("not a regular file"));
    assert!(refused("/home/me/.ssh/id_ed25519").contains("hidden directory (.ssh)"));
    assert!(refused(&format!("{}/Documents/../x", home.0.display())).contains("`..`"));
    assert!(refused("/proc/self/environ").contains("under /proc"));
    assert!(check_on(Os::Linux, &homes, &vec![ok; MOST_FILES + 1]).unwrap_err().contains("at most"));
}

#[test]
fn a_link_to_a_key_is_refused_by_what_it_leads_to() {
    let home = Home::new("key");
    let homes = home.homes(None);
    let key = home.file(".ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----");
    let link = home.link("Documents/report.pdf", &key);
    let refused = upload(&homes, &link).unwrap_err();
    assert!(refused.contains("it leads (through a link) to a file that is inside the SSH keys (~/.ssh)"), "{refused}");
    assert!(!refused.contains(&key), "the answer does not say where the link leads: {refused}");
    // A link to the directory is followed as well, and so is a relative link, and a chain.
    home.link("Documents/keys", "../.ssh");
    assert!(upload(&homes, &format!("{}/Documents/keys/id_ed25519", home.0.display())).is_err());
    home.link("Documents/chain", "report.pdf");
    assert!(upload(&homes, &format!("{}/Documents/chain", home.0.display())).unwrap_err().contains("through a link"));
    // Hidden, wherever the link leads.
    let env = home.file("project/.env", "API_KEY=x");
    let shown = home.link("Documents/settings.txt", &env);
    assert!(upload(&homes, &shown).unwrap_err().contains("is hidden (.env)"));
}

#[test]
fn a_link_into_a_browser_profile_in_an_ordinary_config_directory_is_refused() {
    let home = Home::new("profile");
    let homes = home.homes(Some("cfg"));
    let cookies = home.file("cfg/chromium/Default/Cookies", "cookie jar");
    assert!(upload(&homes, &cookies).unwrap_err().contains("inside Chromium's profile"), "named directly");
    let link = home.link("Documents/cookies.txt", &cookies);
    let refused = upload(&homes, &link).unwrap_err();
    assert!(refused.contains("through a link") && refused.contains("inside Chromium's profile"), "{refused}");
}

#[test]
fn a_link_to_an_ordinary_file_is_followed_and_the_resolved_path_handed_on() {
    let home = Home::new("ordinary");
    let homes = home.homes(None);
    let real = home.file("Downloads/quarterly-2024.pdf", "numbers");
    let link = home.link("Documents/report.pdf", "../Downloads/quarterly-2024.pdf");
    assert_eq!(upload(&homes, &link), Ok(vec![real.clone()]));
    // The same through a linked home: what is handed on has no link left in it.
    let linked_home = home.link("linked-home", &text_of(&home.0));
    assert_eq!(upload(&homes, &format!("{linked_home}/Documents/report.pdf")), Ok(vec![real]));
}

#[test]
fn a_link_to_nothing_or_to_a_device_is_refused() {
    let home = Home::new("dangling");
    let homes = home.homes(None);
    let dangling = home.link("Documents/gone.pdf", &format!("{}/nowhere.pdf", home.0.display()));
    assert!(upload(&homes, &dangling).unwrap_err().contains("link to nothing"));
    let device = home.link("Documents/zero.bin", "/dev/zero");
    assert!(upload(&homes, &device).unwrap_err().contains("under /dev"));
    let environ = home.link("Documents/env.txt", "/proc/self/environ");
    assert!(upload(&homes, &environ).unwrap_err().contains("under /proc"));
}
