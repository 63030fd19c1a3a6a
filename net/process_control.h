#pragma once
// The process as a service manager sees it: Redis's daemonize, logfile, pidfile and
// supervised directives, and disable-thp. Main thread only; Daemonize before any other
// thread exists (a fork keeps only the caller).

#include <string>
#include <string_view>

namespace rc::net {

// Forks into the background as Redis does: the parent exits 0 at once, the child leaves
// the terminal's session and reads and writes /dev/null (OpenLogFile then takes stdout
// and stderr). Returns false, still in the foreground, when the fork fails.
bool Daemonize(std::string* error);

// Appends stdout and stderr, where the log goes, to `path` (created 0644).
bool OpenLogFile(const std::string& path, std::string* error);

// Writes this process's id and a newline to `path`. As Redis, a failure is only logged.
bool WritePidFile(const std::string& path, std::string* error);
void RemovePidFile(const std::string& path);

// Redis's supervised modes: "no", "upstart", "systemd" or "auto", which is systemd when
// $NOTIFY_SOCKET is set, upstart when $UPSTART_JOB is, else no. Returns the mode in force.
std::string_view ResolveSupervised(std::string_view mode);
// Tells the supervisor the server is ready: systemd's READY=1 notification, or the SIGSTOP upstart's `expect stop`
// waits for. Returns false, with `error`, when the mode's supervisor cannot be reached.
bool NotifyReady(std::string_view mode, std::string* error);
// systemd only: the server is stopping (STOPPING=1). Nothing otherwise.
void NotifyStopping(std::string_view mode);

// Turns transparent huge pages off for this process (prctl PR_SET_THP_DISABLE).
bool DisableTransparentHugePages(std::string* error);

}  // namespace rc::net
