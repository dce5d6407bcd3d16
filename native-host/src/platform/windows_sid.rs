//! Which Windows user runs a process, and which process is at the other end of a named pipe.
//!
//! No well-kept crate wraps these few calls, so they are made here, and only here, through
//! `windows-sys`. Every handle opened is closed before returning; every buffer is sized by
//! the system first.
#![allow(unsafe_code)]

use std::io;
use std::os::windows::io::RawHandle;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, HLOCAL, LocalFree};
use windows_sys::Win32::Security::Authorization::ConvertSidToStringSidW;
use windows_sys::Win32::Security::{GetTokenInformation, TOKEN_QUERY, TOKEN_USER, TokenUser};
use windows_sys::Win32::System::Pipes::{GetNamedPipeClientProcessId, GetNamedPipeServerProcessId};
use windows_sys::Win32::System::Threading::{OpenProcess, OpenProcessToken, PROCESS_QUERY_LIMITED_INFORMATION};

/// Closes a handle when dropped.
struct Owned(HANDLE);

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: the handle was returned open by the system and is closed exactly once, here.
        unsafe { CloseHandle(self.0) };
    }
}

/// The id of the process that opened the client end of the pipe whose server end is `pipe`.
pub fn pipe_client_pid(pipe: RawHandle) -> io::Result<u32> {
    let mut pid = 0u32;
    // SAFETY: `pipe` is a live named pipe handle owned by the caller's stream for the whole
    // call; `pid` is a valid place for the system to write a u32.
    if unsafe { GetNamedPipeClientProcessId(pipe as HANDLE, &mut pid) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(pid)
}

/// The id of the process that created the server end of the pipe whose client end is `pipe`.
pub fn pipe_server_pid(pipe: RawHandle) -> io::Result<u32> {
    let mut pid = 0u32;
    // SAFETY: as in `pipe_client_pid`, for the client end.
    if unsafe { GetNamedPipeServerProcessId(pipe as HANDLE, &mut pid) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(pid)
}

/// The user (as a string SID, `S-1-5-21-…`) that process `pid` runs as.
pub fn process_user(pid: u32) -> io::Result<String> {
    // SAFETY: OpenProcess takes plain values; a null result is an error, checked below.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if process.is_null() {
        return Err(io::Error::last_os_error());
    }
    let process = Owned(process);
    let mut token: HANDLE = std::ptr::null_mut();
    // SAFETY: `process.0` is open with query rights; `token` is a valid place for the handle.
    if unsafe { OpenProcessToken(process.0, TOKEN_QUERY, &mut token) } == 0 {
        return Err(io::Error::last_os_error());
    }
    let token = Owned(token);
    let mut len = 0u32;
    // SAFETY: a null buffer of length 0 asks only for the size needed, written to `len`.
    unsafe { GetTokenInformation(token.0, TokenUser, std::ptr::null_mut(), 0, &mut len) };
    if len == 0 {
        return Err(io::Error::last_os_error());
    }
    // u64 words keep the TOKEN_USER at the front suitably aligned.
    let mut buffer = vec![0u64; (len as usize).div_ceil(8)];
    // SAFETY: `buffer` holds at least `len` writable bytes.
    if unsafe { GetTokenInformation(token.0, TokenUser, buffer.as_mut_ptr().cast(), len, &mut len) } == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the call succeeded, so the buffer starts with a TOKEN_USER whose SID points
    // into the same buffer, which lives until the end of this function.
    let sid = unsafe { (*buffer.as_ptr().cast::<TOKEN_USER>()).User.Sid };
    let mut text: *mut u16 = std::ptr::null_mut();
    // SAFETY: `sid` is a valid SID (above); on success `text` is a NUL-terminated string the
    // system allocated, read below and freed with LocalFree.
    if unsafe { ConvertSidToStringSidW(sid, &mut text) } == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `text` is NUL-terminated (above): the loop stops at the NUL.
    let len = (0..).take_while(|&i| unsafe { *text.add(i) } != 0).count();
    // SAFETY: `text` has `len` readable u16s before its NUL.
    let sid = String::from_utf16_lossy(unsafe { std::slice::from_raw_parts(text, len) });
    // SAFETY: `text` was allocated by ConvertSidToStringSidW and is freed once.
    unsafe { LocalFree(text as HLOCAL) };
    Ok(sid)
}
