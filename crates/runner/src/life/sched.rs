//! Commands run under the normal scheduler, whatever scheduler the server runs under.

/// Drops a real-time policy (`SCHED_FIFO`, `SCHED_RR`) inherited from the server, keeping the nice value. A command
/// at real-time priority could starve the host; and the kernel refuses a real-time task into a cgroup v1 `cpu`
/// group that has no real-time runtime of its own, which the commands' and the sessions' groups never have.
pub fn drop_real_time() {
    // SAFETY: reads and lowers this process's own scheduling policy, with a parameter of ours. The parameter is all
    // integers (musl's has fields beside the priority that glibc's lacks), so zeroed it is priority 0 everywhere.
    unsafe {
        let policy = libc::sched_getscheduler(0) & !libc::SCHED_RESET_ON_FORK;
        if policy == libc::SCHED_FIFO || policy == libc::SCHED_RR {
            let normal: libc::sched_param = std::mem::zeroed();
            libc::sched_setscheduler(0, libc::SCHED_OTHER, &normal);
        }
    }
}
