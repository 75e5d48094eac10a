//! Network namespaces of the run's own, and the tools that configure them.
//!
//! The namespaces are unnamed: a thread enters a new one (`unshare(2)`, `CLONE_NEWNET`) and
//! opens its handle, then ends. Only this process holds them, through those handles and the
//! sockets and devices made inside them (a socket stays in the namespace it was made in,
//! whichever thread uses it), and no file under /var/run/netns names them; when the process
//! ends, however it ends, the kernel frees them and everything in them. `ip` and `tc`
//! (iproute2) configure them, started from a thread that has entered the namespace
//! (`setns(2)`): a child starts in its parent thread's namespaces.

use std::fs::File;
use std::io::ErrorKind;
use std::os::fd::AsRawFd;
use std::process::Command;

use crate::error::{Error, Result};

/// What a run needs namespaces for: the setting its failures name, and what it asks of the
/// machine.
#[derive(Clone, Copy, Debug)]
pub struct Needs {
    pub field: &'static str,
    pub value: &'static str,
    /// What the process must be allowed to do.
    pub what: &'static str,
    /// What to use instead.
    pub instead: &'static str,
}

impl Needs {
    /// The error of a machine that cannot give the run what it needs, and why.
    pub fn unable(self, why: impl std::fmt::Display) -> Error {
        Error::invalid(
            self.field,
            self.value,
            format!(
                "needs a process that may {} (root, or CAP_SYS_ADMIN and CAP_NET_ADMIN); here {why}; {}",
                self.what, self.instead
            ),
        )
    }
}

/// A new network namespace, held by its handle.
pub fn namespace(needs: Needs) -> Result<File> {
    std::thread::spawn(move || {
        // SAFETY: unshare changes only this short-lived thread's network namespace.
        if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
            return Err(needs.unable(format_args!(
                "unshare(CLONE_NEWNET) failed: {}",
                std::io::Error::last_os_error()
            )));
        }
        File::open("/proc/thread-self/ns/net")
            .map_err(|e| needs.unable(format_args!("/proc/thread-self/ns/net: {e}")))
    })
    .join()
    .unwrap_or_else(|_| Err(needs.unable("the thread making a namespace failed")))
}

/// Runs `f` on a thread inside the namespace `ns`.
pub fn inside<R: Send>(needs: Needs, ns: &File, f: impl FnOnce() -> Result<R> + Send) -> Result<R> {
    std::thread::scope(|s| {
        s.spawn(|| {
            // SAFETY: setns moves only this scoped thread, into a namespace held open by `ns`.
            if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                return Err(needs.unable(format_args!(
                    "setns failed: {}",
                    std::io::Error::last_os_error()
                )));
            }
            f()
        })
        .join()
        .unwrap_or_else(|_| Err(needs.unable("a thread configuring a namespace failed")))
    })
}

/// Runs an iproute2 command (`ip ...` or `tc ...`) in the calling thread's namespace.
pub fn tool(needs: Needs, args: &[&str]) -> Result<()> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| needs.unable(format_args!("`{}` could not start: {e}", args[0])))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(needs.unable(format_args!("`{}` failed: {}", args.join(" "), err.trim())));
    }
    Ok(())
}

/// Sets a namespace's sysctl from a thread inside it; a missing one (no IPv6) is fine.
pub fn sysctl(needs: Needs, path: &str, value: &str) -> Result<()> {
    match std::fs::write(path, value) {
        Err(e) if e.kind() != ErrorKind::NotFound => Err(needs.unable(format_args!("{path}: {e}"))),
        _ => Ok(()),
    }
}
