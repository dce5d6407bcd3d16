//! The per-system answers, checked on whatever system runs the tests.

use super::*;

fn linux() -> Env {
    Env { home: Some("/home/ada".into()), temp_dir: "/tmp".into(), uid: 1000, user: "ada".into(), ..Env::default() }
}

fn macos() -> Env {
    Env {
        home: Some("/Users/ada".into()),
        temp_dir: "/var/folders/zz/abc123/T/".into(),
        uid: 501,
        user: "ada".into(),
        ..Env::default()
    }
}

fn windows() -> Env {
    Env {
        home: None,
        local_app_data: Some(r"C:\Users\Ada Lovelace\AppData\Local".into()),
        temp_dir: r"C:\Users\Ada Lovelace\AppData\Local\Temp".into(),
        user: "Ada Lovelace".into(),
        ..Env::default()
    }
}

fn text(path: Option<PathBuf>) -> String {
    path.expect("an answer").to_string_lossy().into_owned()
}

#[test]
fn linux_profiles_follow_xdg_config_home() {
    let env = linux();
    assert_eq!(text(profile_root(Os::Linux, Browser::Chrome, &env)), "/home/ada/.config/google-chrome");
    assert_eq!(text(profile_root(Os::Linux, Browser::Brave, &env)), "/home/ada/.config/BraveSoftware/Brave-Browser");
    let env = Env { xdg_config_home: Some("/cfg".into()), ..linux() };
    assert_eq!(text(profile_root(Os::Linux, Browser::Edge, &env)), "/cfg/microsoft-edge");
    assert_eq!(
        text(manifest_path(Os::Linux, Some(Browser::Vivaldi), Path::new("/cfg/vivaldi"), &env)),
        "/cfg/vivaldi/NativeMessagingHosts/dev.sightline.host.json"
    );
    assert_eq!(profile_root(Os::Linux, Browser::Chrome, &Env::default()), None, "no HOME, no answer");
}

#[test]
fn macos_manifests_go_in_each_browsers_application_support_directory() {
    let env = macos();
    let expected = [
        (Browser::Chrome, "/Users/ada/Library/Application Support/Google/Chrome/NativeMessagingHosts"),
        (Browser::Chromium, "/Users/ada/Library/Application Support/Chromium/NativeMessagingHosts"),
        (Browser::Edge, "/Users/ada/Library/Application Support/Microsoft Edge/NativeMessagingHosts"),
        (Browser::Brave, "/Users/ada/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts"),
        (Browser::Vivaldi, "/Users/ada/Library/Application Support/Vivaldi/NativeMessagingHosts"),
    ];
    for (browser, dir) in expected {
        let root = profile_root(Os::Mac, browser, &env).unwrap();
        let manifest = manifest_path(Os::Mac, Some(browser), &root, &env).unwrap();
        assert_eq!(manifest, Path::new(dir).join("dev.sightline.host.json"), "{browser:?}");
        assert_eq!(registry_key(Os::Mac, browser), None);
    }
}

#[test]
fn windows_profiles_are_under_local_app_data() {
    let env = windows();
    let expected = [
        (Browser::Chrome, r"C:\Users\Ada Lovelace\AppData\Local\Google\Chrome\User Data"),
        (Browser::Chromium, r"C:\Users\Ada Lovelace\AppData\Local\Chromium\User Data"),
        (Browser::Edge, r"C:\Users\Ada Lovelace\AppData\Local\Microsoft\Edge\User Data"),
        (Browser::Brave, r"C:\Users\Ada Lovelace\AppData\Local\BraveSoftware\Brave-Browser\User Data"),
        (Browser::Vivaldi, r"C:\Users\Ada Lovelace\AppData\Local\Vivaldi\User Data"),
    ];
    for (browser, root) in expected {
        assert_eq!(text(profile_root(Os::Windows, browser, &env)), root, "{browser:?}");
    }
}

#[test]
fn windows_registers_each_browser_under_its_vendors_key() {
    let key = |b| registry_key_name(&registry_key(Os::Windows, b).unwrap());
    assert_eq!(
        key(Browser::Chrome),
        r"HKEY_CURRENT_USER\Software\Google\Chrome\NativeMessagingHosts\dev.sightline.host"
    );
    assert_eq!(key(Browser::Chromium), r"HKEY_CURRENT_USER\Software\Chromium\NativeMessagingHosts\dev.sightline.host");
    assert_eq!(
        key(Browser::Edge),
        r"HKEY_CURRENT_USER\Software\Microsoft\Edge\NativeMessagingHosts\dev.sightline.host"
    );
    // Brave and Vivaldi read Chrome's key: one registration serves the three.
    assert_eq!(key(Browser::Brave), key(Browser::Chrome));
    assert_eq!(key(Browser::Vivaldi), key(Browser::Chrome));
    assert_eq!(sharing_registration(Os::Windows, Browser::Brave), [Browser::Chrome, Browser::Brave, Browser::Vivaldi]);
    assert_eq!(sharing_registration(Os::Linux, Browser::Brave), [Browser::Brave]);
    assert_eq!(registry_key(Os::Linux, Browser::Chrome), None);
}

#[test]
fn windows_manifests_are_one_file_per_registry_key_under_local_app_data() {
    let env = windows();
    let manifest = |b| text(manifest_path(Os::Windows, Some(b), Path::new("ignored"), &env));
    let base = r"C:\Users\Ada Lovelace\AppData\Local\Sightline\NativeMessagingHosts";
    assert_eq!(manifest(Browser::Chrome), format!(r"{base}\chrome\dev.sightline.host.json"));
    assert_eq!(manifest(Browser::Brave), manifest(Browser::Chrome));
    assert_eq!(manifest(Browser::Chromium), format!(r"{base}\chromium\dev.sightline.host.json"));
    assert_eq!(manifest(Browser::Edge), format!(r"{base}\edge\dev.sightline.host.json"));
    assert_eq!(manifest_path(Os::Windows, None, Path::new(r"D:\profile"), &env), None, "a profile alone names no key");
    assert!(user_data_dir_unsupported(Os::Windows).unwrap().contains("only in the registry"));
    assert_eq!(user_data_dir_unsupported(Os::Mac), None);
}

#[test]
fn bridges_listen_in_the_runtime_dir_or_a_per_user_temporary_dir() {
    let env = Env { xdg_runtime_dir: Some("/run/user/1000".into()), ..linux() };
    let dir = bridge_dir(Os::Linux, &env);
    assert_eq!(dir, Path::new("/run/user/1000/sightline"));
    assert_eq!(bridge_endpoint(Os::Linux, &dir, &env, 42), Path::new("/run/user/1000/sightline/bridge-42.sock"));
    assert_eq!(bridge_dir(Os::Linux, &linux()), Path::new("/tmp/sightline-1000"));
    // A client started without XDG_RUNTIME_DIR finds the login session's runtime directory,
    // where a browser that has the variable puts its bridge.
    let trimmed = Env { login_runtime_dir: Some("/run/user/1000".into()), ..linux() };
    assert_eq!(bridge_dir(Os::Linux, &trimmed), Path::new("/run/user/1000/sightline"));
    let both = Env { xdg_runtime_dir: Some("/custom".into()), ..trimmed };
    assert_eq!(bridge_dir(Os::Linux, &both), Path::new("/custom/sightline"), "the variable wins");
    // macOS: $TMPDIR is already the user's own.
    let dir = bridge_dir(Os::Mac, &macos());
    assert_eq!(dir, Path::new("/var/folders/zz/abc123/T/sightline-501"));
    assert_eq!(bridge_endpoint(Os::Mac, &dir, &macos(), 7), dir.join("bridge-7.sock"));
    // The socket path must fit in sun_path (104 bytes on macOS) for a usual $TMPDIR.
    let usual = Env { temp_dir: "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/".into(), ..macos() };
    let path = bridge_endpoint(Os::Mac, &bridge_dir(Os::Mac, &usual), &usual, 4_294_967);
    assert!(path.as_os_str().len() < 104, "{}", path.display());
    assert!(is_bridge_endpoint(Os::Mac, "bridge-7.sock", &macos()));
    assert!(!is_bridge_endpoint(Os::Linux, "other.sock", &linux()));
}

#[test]
fn windows_bridges_are_named_pipes_with_the_user_in_the_name() {
    let env = windows();
    let dir = bridge_dir(Os::Windows, &env);
    assert_eq!(text(Some(dir.clone())), r"\\.\pipe\");
    assert_eq!(
        text(Some(bridge_endpoint(Os::Windows, &dir, &env, 4321))),
        r"\\.\pipe\sightline-ada_lovelace-bridge-4321"
    );
    assert!(is_bridge_endpoint(Os::Windows, "sightline-ada_lovelace-bridge-4321", &env));
    assert!(is_bridge_endpoint(Os::Windows, "Sightline-Ada_Lovelace-Bridge-9", &env), "pipe names ignore case");
    assert!(!is_bridge_endpoint(Os::Windows, "sightline-bob-bridge-4321", &env), "another user's");
    assert!(!is_bridge_endpoint(Os::Windows, "sightline-ada_lovelace-bridge-", &env));
    assert!(!is_bridge_endpoint(Os::Windows, "sightline-ada_lovelace-bridge-1x", &env));
    let nameless = Env { user: String::new(), ..windows() };
    assert_eq!(text(Some(bridge_endpoint(Os::Windows, &dir, &nameless, 1))), r"\\.\pipe\sightline-user-bridge-1");
}

#[test]
fn a_socket_directory_is_trusted_only_when_private_in_a_parent_nobody_else_can_change() {
    let dir = Path::new("/tmp/sightline-1000");
    let tmp = Path::new("/tmp");
    let mine = DirFacts { is_dir: true, owner: 1000, mode: 0o40700 };
    let sticky_root = DirFacts { is_dir: true, owner: 0, mode: 0o41777 };
    assert_eq!(check_socket_dir(dir, mine, Some((tmp, sticky_root)), 1000), Ok(()));
    assert_eq!(check_socket_dir(dir, mine, None, 1000), Ok(()));
    // macOS: the per-user $TMPDIR is the user's own, 0700.
    let user_tmp = DirFacts { is_dir: true, owner: 501, mode: 0o40700 };
    let mac_mine = DirFacts { owner: 501, ..mine };
    assert_eq!(
        check_socket_dir(Path::new("/var/folders/zz/T/sightline-501"), mac_mine, Some((tmp, user_tmp)), 501),
        Ok(())
    );

    let planted = DirFacts { owner: 65534, mode: 0o40777, ..mine };
    assert_eq!(
        check_socket_dir(dir, planted, None, 1000),
        Err(Untrusted::DirOwner { dir: dir.into(), owner: 65534, uid: 1000 })
    );
    let open = DirFacts { mode: 0o40755, ..mine };
    assert_eq!(check_socket_dir(dir, open, None, 1000), Err(Untrusted::DirMode { dir: dir.into(), mode: 0o755 }));
    let link = DirFacts { is_dir: false, ..mine };
    assert_eq!(check_socket_dir(dir, link, None, 1000), Err(Untrusted::NotADirectory { dir: dir.into() }));
    let open_parent = DirFacts { is_dir: true, owner: 0, mode: 0o40777 };
    assert!(matches!(check_socket_dir(dir, mine, Some((tmp, open_parent)), 1000), Err(Untrusted::Parent { .. })));
    let others_parent = DirFacts { is_dir: true, owner: 1001, mode: 0o40700 };
    assert!(matches!(check_socket_dir(dir, mine, Some((tmp, others_parent)), 1000), Err(Untrusted::Parent { .. })));
}

#[test]
fn only_a_peer_of_the_same_user_is_talked_to() {
    let socket = Path::new("/tmp/sightline-1000/bridge-1.sock");
    assert_eq!(check_socket_peer(socket, Side::Listener, 1000, 1000), Ok(()));
    assert_eq!(
        check_socket_peer(socket, Side::Listener, 65534, 1000),
        Err(Untrusted::PeerUid { socket: socket.into(), peer: 65534, uid: 1000 })
    );
    assert!(matches!(check_socket_peer(socket, Side::Client, 0, 1000), Err(Untrusted::ClientUid { peer: 0, .. })));
    assert_eq!(check_socket_owner(socket, 1000, 1000), Ok(()));
    assert!(matches!(check_socket_owner(socket, 1, 1000), Err(Untrusted::SocketOwner { owner: 1, .. })));

    let pipe = Path::new(r"\\.\pipe\sightline-ada-bridge-1");
    let ada = "S-1-5-21-1004336348-1177238915-682003330-1001";
    let bob = "S-1-5-21-1004336348-1177238915-682003330-1002";
    assert_eq!(check_pipe_peer(pipe, Side::Listener, ada, ada), Ok(()));
    let refusal = check_pipe_peer(pipe, Side::Listener, bob, ada).unwrap_err();
    assert!(matches!(&refusal, Untrusted::PipeServerUser { peer, .. } if peer == bob), "{refusal:?}");
    let text = refusal.to_string();
    assert!(text.contains(bob) && text.contains(ada) && text.contains("Nothing was sent"), "{text}");
    assert!(matches!(check_pipe_peer(pipe, Side::Client, bob, ada), Err(Untrusted::PipeClientUser { .. })));
}

#[test]
fn logs_stay_in_a_per_user_directory() {
    assert_eq!(state_dir(Os::Linux, &linux()), Path::new("/home/ada/.local/state/sightline"));
    let env = Env { xdg_state_home: Some("/state".into()), ..linux() };
    assert_eq!(state_dir(Os::Linux, &env), Path::new("/state/sightline"));
    assert_eq!(state_dir(Os::Linux, &Env { home: None, ..linux() }), Path::new("/tmp/sightline-state-1000"));
    assert_eq!(state_dir(Os::Mac, &macos()), Path::new("/Users/ada/.local/state/sightline"));
    assert_eq!(text(Some(state_dir(Os::Windows, &windows()))), r"C:\Users\Ada Lovelace\AppData\Local\Sightline\logs");
}
