//! The upload rules of each system, checked as plain path rules on whatever system runs them.

use super::*;

fn linux() -> Homes {
    Homes { env: Env { home: Some("/home/ada".into()), ..Env::default() }, app_data: None }
}

fn mac() -> Homes {
    Homes { env: Env { home: Some("/Users/ada".into()), ..Env::default() }, app_data: None }
}

fn windows() -> Homes {
    Homes {
        env: Env {
            home: Some(r"C:\Users\Ada".into()),
            local_app_data: Some(r"C:\Users\Ada\AppData\Local".into()),
            ..Env::default()
        },
        app_data: Some(r"C:\Users\Ada\AppData\Roaming".into()),
    }
}

/// Where a path is refused, or `Ok` when its place passes.
fn place(os: Os, homes: &Homes, path: &str) -> Result<(), Refusal> {
    check_place(os, path, &[homes])
}

#[test]
fn ordinary_files_pass_on_every_system() {
    for path in ["/home/ada/Documents/report.pdf", "/tmp/upload/cv.txt", "/home/ada/Downloads/id_card.jpg"] {
        assert_eq!(check_text(Os::Linux, path), Ok(()), "{path}");
        assert_eq!(place(Os::Linux, &linux(), path), Ok(()), "{path}");
    }
    let ordinary_mac = ["/Users/ada/Desktop/cv.pdf", "/Users/ada/Library/Mobile Documents/com~apple~CloudDocs/x.pdf"];
    for path in ordinary_mac {
        assert_eq!(place(Os::Mac, &mac(), path), Ok(()), "{path}");
    }
    for path in [r"C:\Users\Ada\Documents\report.pdf", "D:/scans/passport.png", r"C:\Users\Ada\OneDrive\cv.docx"] {
        assert_eq!(check_text(Os::Windows, path), Ok(()), "{path}");
        assert_eq!(place(Os::Windows, &windows(), path), Ok(()), "{path}");
    }
}

#[test]
fn only_absolute_paths_without_dot_dot_are_read() {
    for path in ["report.txt", "./report.txt", "~/report.txt", ""] {
        assert_eq!(check_text(Os::Linux, path), Err(Refusal::NotAbsolute), "{path}");
    }
    assert_eq!(check_text(Os::Linux, "/home/ada/../bob/x"), Err(Refusal::ParentDir));
    // `C:report.txt` is relative to the drive's current directory, `\report.txt` to the current drive.
    for path in [r"C:report.txt", r"\report.txt", "/home/ada/report.txt", r"report.txt"] {
        assert_eq!(check_text(Os::Windows, path), Err(Refusal::NotAbsolute), "{path}");
    }
    assert_eq!(check_text(Os::Windows, r"C:\Users\Ada\..\Bob\x"), Err(Refusal::ParentDir));
}

#[test]
fn windows_network_and_device_paths_are_refused_before_anything_is_opened() {
    for path in [r"\\server\share\report.pdf", "//server/share/report.pdf", r"\\203.0.113.9\c$\x"] {
        assert_eq!(check_text(Os::Windows, path), Err(Refusal::Unc), "{path}");
    }
    let devices = [
        r"\\?\C:\Users\Ada\report.pdf",
        r"\\.\PhysicalDrive0",
        r"\\?\UNC\server\share\x",
        r"\??\C:\x",
        r"C:\Users\Ada\NUL",
        r"C:\Users\Ada\con.txt",
        r"C:\Users\Ada\COM1",
        r"C:\Users\Ada\lpt9.log",
        r"C:\Users\Ada\CONIN$",
        r"C:\Users\Ada\report.pdf:secret",
        r"C:\Users\Ada\report.pdf::$DATA",
    ];
    for path in devices {
        assert_eq!(check_text(Os::Windows, path), Err(Refusal::Device), "{path}");
    }
    // Names that merely start like a device are files.
    for path in [r"C:\Users\Ada\console.txt", r"C:\Users\Ada\COM10", r"C:\Users\Ada\nullable.txt"] {
        assert_eq!(check_text(Os::Windows, path), Ok(()), "{path}");
    }
    // The same text on Linux is a relative path, refused as such.
    assert_eq!(check_text(Os::Linux, r"\\server\share\x"), Err(Refusal::NotAbsolute));
}

#[test]
fn a_resolved_windows_path_is_handed_on_plain_and_a_resolved_network_path_is_refused() {
    assert_eq!(plain_windows(r"\\?\C:\Users\Ada\report.pdf"), Ok(r"C:\Users\Ada\report.pdf".to_owned()));
    assert_eq!(plain_windows(r"C:\Users\Ada\report.pdf"), Ok(r"C:\Users\Ada\report.pdf".to_owned()));
    assert_eq!(plain_windows(r"\\?\UNC\server\share\x"), Err(Refusal::Unc));
    assert_eq!(plain_windows(r"\\?\unc\server\share\x"), Err(Refusal::Unc));
    assert_eq!(plain_windows(r"\\?\Volume{0b1c}\x"), Err(Refusal::Device));
}

#[test]
fn hidden_names_anywhere_on_the_path_are_refused() {
    let hidden = |name: &str, own: bool| Err(Refusal::Hidden(name.to_owned(), own));
    assert_eq!(place(Os::Linux, &linux(), "/srv/app/.env"), hidden(".env", true));
    assert_eq!(place(Os::Linux, &linux(), "/srv/.git/config"), hidden(".git", false));
    assert_eq!(place(Os::Linux, &linux(), "/home/ada/.config/app/x.pdf"), hidden(".config", false));
    assert_eq!(place(Os::Mac, &mac(), "/Users/ada/.Trash/x.pdf"), hidden(".Trash", false));
    assert_eq!(place(Os::Windows, &windows(), r"D:\.secrets\x.pdf"), hidden(".secrets", false));
    // AppData is hidden on Windows, wherever it is.
    assert_eq!(place(Os::Windows, &windows(), r"E:\Users\Bob\AppData\Local\Temp\x.pdf"), hidden("AppData", false));
    // A `\` is a name character on Linux, not a separator.
    assert_eq!(place(Os::Linux, &linux(), r"/home/ada/a\.b"), Ok(()));
}

#[test]
fn every_browsers_profile_is_refused_on_every_system() {
    let profile = |b: &'static str| Err(Refusal::BrowserProfile(b));
    // Linux: under the XDG config directory, which may be an ordinary one, and in snaps.
    let custom = Homes { env: Env { xdg_config_home: Some("/home/ada/cfg".into()), ..linux().env }, ..linux() };
    let linux_cases = [
        ("/home/ada/cfg/google-chrome/Default/Cookies", "Chrome"),
        ("/home/ada/cfg/google-chrome-beta/Default/Login Data", "Chrome"),
        ("/home/ada/cfg/chromium/Default/Cookies", "Chromium"),
        ("/home/ada/cfg/microsoft-edge/Default/Cookies", "Edge"),
        ("/home/ada/cfg/BraveSoftware/Brave-Browser/Default/Cookies", "Brave"),
        ("/home/ada/cfg/vivaldi/Default/Cookies", "Vivaldi"),
        ("/home/ada/cfg/opera/Cookies", "Opera"),
        ("/home/ada/snap/chromium/common/chromium/Default/Cookies", "Chromium"),
        ("/home/ada/snap/firefox/common/x/cookies.sqlite", "Firefox"),
    ];
    for (path, browser) in linux_cases {
        assert_eq!(place(Os::Linux, &custom, path), profile(browser), "{path}");
    }
    assert_eq!(place(Os::Linux, &linux(), "/home/ada/.mozilla/firefox/p/logins.json"), profile("Firefox"));
    assert_eq!(place(Os::Linux, &linux(), "/home/ada/.config/chromium/Default/Cookies"), profile("Chromium"));
    // macOS: Application Support, whatever the case the path is written in.
    let mac_cases = [
        ("/Users/ada/Library/Application Support/Google/Chrome/Default/Cookies", "Chrome"),
        ("/Users/ada/Library/Application Support/Google/Chrome Canary/Default/Cookies", "Chrome"),
        ("/users/ADA/library/application support/chromium/Default/Cookies", "Chromium"),
        ("/Users/ada/Library/Application Support/Microsoft Edge/Default/Cookies", "Edge"),
        ("/Users/ada/Library/Application Support/BraveSoftware/Brave-Browser/Default/Cookies", "Brave"),
        ("/Users/ada/Library/Application Support/Vivaldi/Default/Cookies", "Vivaldi"),
        ("/Users/ada/Library/Application Support/Firefox/Profiles/p/logins.json", "Firefox"),
        ("/Users/ada/Library/Application Support/com.operasoftware.Opera/Cookies", "Opera"),
        ("/Users/ada/Library/Cookies/Cookies.binarycookies", "Safari"),
        ("/Users/ada/Library/Safari/History.db", "Safari"),
    ];
    for (path, browser) in mac_cases {
        assert_eq!(place(Os::Mac, &mac(), path), profile(browser), "{path}");
    }
    // Windows: checked by place before AppData's being hidden, so the reason is the precise one.
    let windows_cases = [
        (r"C:\Users\Ada\AppData\Local\Google\Chrome\User Data\Default\Network\Cookies", "Chrome"),
        (r"c:\users\ada\appdata\local\google\chrome sxs\User Data\Local State", "Chrome"),
        (r"C:\Users\Ada\AppData\Local\Chromium\User Data\Default\Cookies", "Chromium"),
        (r"C:\Users\Ada\AppData\Local\Microsoft\Edge\User Data\Default\Cookies", "Edge"),
        (r"C:\Users\Ada\AppData\Local\BraveSoftware\Brave-Browser\User Data\Default\Cookies", "Brave"),
        (r"C:\Users\Ada\AppData\Local\Vivaldi\User Data\Default\Cookies", "Vivaldi"),
        (r"C:\Users\Ada\AppData\Roaming\Mozilla\Firefox\Profiles\p\logins.json", "Firefox"),
        (r"C:\Users\Ada\AppData\Roaming\Opera Software\Opera Stable\Cookies", "Opera"),
    ];
    for (path, browser) in windows_cases {
        assert_eq!(place(Os::Windows, &windows(), path), profile(browser), "{path}");
    }
}

#[test]
fn key_and_password_stores_and_key_files_are_refused() {
    let store = |s: &'static str| Err(Refusal::SecretStore(s));
    assert_eq!(place(Os::Linux, &linux(), "/home/ada/.ssh/id_ed25519"), store("the SSH keys (~/.ssh)"));
    assert_eq!(
        place(Os::Linux, &linux(), "/home/ada/.gnupg/private-keys-v1.d/k.key"),
        store("the GnuPG keyring (~/.gnupg)")
    );
    assert_eq!(
        place(Os::Linux, &linux(), "/home/ada/.password-store/bank.gpg"),
        store("the password store (~/.password-store)")
    );
    assert_eq!(
        place(Os::Linux, &linux(), "/home/ada/.local/share/keyrings/login.keyring"),
        store("the desktop keyring (~/.local/share/keyrings)")
    );
    assert_eq!(
        place(Os::Mac, &mac(), "/Users/ada/Library/Keychains/login.keychain-db"),
        store("the keychains (~/Library/Keychains)")
    );
    let windows_stores = [
        (r"C:\Users\Ada\AppData\Roaming\Microsoft\Credentials\ABC", "Windows' credential store"),
        (r"C:\Users\Ada\AppData\Local\Microsoft\Credentials\ABC", "Windows' credential store"),
        (r"C:\Users\Ada\AppData\Roaming\Microsoft\Protect\S-1-5-21\key", "Windows' data protection keys"),
        (r"C:\Users\Ada\AppData\Roaming\Microsoft\Crypto\RSA\k", "Windows' private keys"),
        (r"C:\Users\Ada\.ssh\id_rsa", "the SSH keys (%USERPROFILE%\\.ssh)"),
    ];
    for (path, which) in windows_stores {
        assert_eq!(place(Os::Windows, &windows(), path), store(which), "{path}");
    }
    // A key or a password database is refused by its name wherever it was put.
    let secret_file = |n: &str| Err(Refusal::SecretFile(n.to_owned()));
    assert_eq!(place(Os::Linux, &linux(), "/home/ada/Documents/id_rsa"), secret_file("id_rsa"));
    assert_eq!(place(Os::Linux, &linux(), "/home/ada/Documents/Passwords.kdbx"), secret_file("Passwords.kdbx"));
    assert_eq!(place(Os::Windows, &windows(), r"D:\backup\ID_ED25519"), secret_file("ID_ED25519"));
    assert_eq!(place(Os::Linux, &linux(), "/home/ada/Documents/id_rsa.pub"), Ok(()), "a public key is no secret");
}

#[test]
fn the_systems_own_trees_are_refused() {
    let system = |t: &'static str| Err(Refusal::System(t));
    assert_eq!(place(Os::Linux, &linux(), "/proc/self/environ"), system("/proc"));
    assert_eq!(place(Os::Linux, &linux(), "/sys/kernel/notes"), system("/sys"));
    assert_eq!(place(Os::Linux, &linux(), "/dev/sda"), system("/dev"));
    assert_eq!(place(Os::Linux, &linux(), "/procedures/x.pdf"), Ok(()), "by component, not by prefix");
    assert_eq!(place(Os::Mac, &mac(), "/dev/disk0"), system("/dev"));
    assert_eq!(place(Os::Windows, &windows(), r"C:\Windows\System32\config\SAM"), system("C:/Windows/System32/config"));
}

#[test]
fn a_place_is_found_through_the_users_directories_as_named_or_as_resolved() {
    // `HOME` may itself be a link (/home → /usr/home): the stores are found under both.
    let resolved = Homes { env: Env { home: Some("/usr/home/ada".into()), ..Env::default() }, app_data: None };
    assert_eq!(
        check_place(Os::Linux, "/usr/home/ada/snap/chromium/common/Cookies", &[&linux(), &resolved]),
        Err(Refusal::BrowserProfile("Chromium"))
    );
    assert_eq!(check_place(Os::Linux, "/usr/home/ada/snap/chromium/common/Cookies", &[&linux()]), Ok(()));
}

#[test]
fn each_refusal_says_what_is_wrong_and_what_to_do() {
    let link = Refusal::SecretStore("the SSH keys (~/.ssh)").describe("\"/home/ada/report.pdf\"", true);
    assert!(link.starts_with("\"/home/ada/report.pdf\" is refused: it leads (through a link) to a file"), "{link}");
    assert!(link.contains("inside the SSH keys (~/.ssh)") && link.contains("copy it to an ordinary folder"), "{link}");
    let named = Refusal::Hidden(".env".into(), true).describe("\"/srv/.env\"", false);
    assert!(named.contains("the file is hidden (.env)"), "{named}");
    assert!(Refusal::Unc.describe("\"x\"", false).contains("network (UNC) path"));
    assert!(Refusal::Device.describe("\"x\"", false).contains(r"(\\?\, \\.\, a reserved name"));
}
