#include "net/process_control.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/strings.h"

namespace rc::net {

namespace {

std::string Errno(std::string_view what) { return StrCat(what, ": ", std::strerror(errno)); }

// systemd's sd_notify, without libsystemd: one datagram to $NOTIFY_SOCKET, a path or,
// with a leading '@', an abstract socket.
bool SystemdNotify(std::string_view state, std::string* error) {
  const char* where = std::getenv("NOTIFY_SOCKET");
  if (where == nullptr || where[0] == '\0') {
    *error = "systemd supervision requested, but NOTIFY_SOCKET not found";
    return false;
  }
  const std::string path = where;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path) || (path[0] != '/' && path[0] != '@')) {
    *error = StrCat("NOTIFY_SOCKET is not a unix socket path: ", path);
    return false;
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  if (path[0] == '@') addr.sun_path[0] = '\0';
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = Errno("socket");
    return false;
  }
  const socklen_t len = socklen_t(offsetof(sockaddr_un, sun_path) + path.size());
  const bool sent = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                             reinterpret_cast<const sockaddr*>(&addr), len) >= 0;
  if (!sent) *error = Errno(StrCat("sendto ", path));
  ::close(fd);
  return sent;
}

}  // namespace

std::string_view ResolveSupervised(std::string_view mode) {
  if (mode != "auto") return mode;
  if (std::getenv("NOTIFY_SOCKET") != nullptr) return "systemd";
  if (std::getenv("UPSTART_JOB") != nullptr) return "upstart";
  return "no";
}

bool Daemonize(std::string* error) {
  const pid_t pid = ::fork();
  if (pid < 0) {
    *error = Errno("fork");
    return false;
  }
  if (pid > 0) std::_Exit(0);
  ::setsid();
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    if (null > STDERR_FILENO) ::close(null);
  }
  return true;
}

bool OpenLogFile(const std::string& path, std::string* error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = Errno(StrCat("Can't open the log file ", path));
    return false;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
  ::close(fd);
  return true;
}

bool WritePidFile(const std::string& path, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    *error = Errno(StrCat("Failed to write PID file ", path));
    return false;
  }
  std::fprintf(f, "%d\n", int(::getpid()));
  const bool ok = std::fclose(f) == 0;
  if (!ok) *error = Errno(StrCat("Failed to write PID file ", path));
  return ok;
}

void RemovePidFile(const std::string& path) { ::unlink(path.c_str()); }

bool NotifyReady(std::string_view mode, std::string* error) {
  const std::string_view resolved = ResolveSupervised(mode);
  if (resolved == "systemd") {
    return SystemdNotify("STATUS=Ready to accept connections\nREADY=1\n", error);
  }
  if (resolved == "upstart") {
    if (std::getenv("UPSTART_JOB") == nullptr) {
      *error = "upstart supervision requested, but UPSTART_JOB not found";
      return false;
    }
    ::raise(SIGSTOP);
    ::unsetenv("UPSTART_JOB");
  }
  return true;
}

void NotifyStopping(std::string_view mode) {
  std::string ignored;
  if (ResolveSupervised(mode) == "systemd") SystemdNotify("STOPPING=1\n", &ignored);
}

bool DisableTransparentHugePages(std::string* error) {
  if (::prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0) return true;
  *error = Errno("prctl(PR_SET_THP_DISABLE)");
  return false;
}

}  // namespace rc::net
