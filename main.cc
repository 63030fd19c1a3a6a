// ringcache: a sharded, multi-threaded Redis-protocol cache on io_uring.

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "core/log.h"
#include "core/malloc_tuning.h"
#include "net/process_control.h"
#include "net/server.h"
#include "shard/state/command_line.h"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--version" || std::string_view(argv[i]) == "-v") {
      std::printf("ringcache 0.1.0 (redis protocol 7.0.15 compatible)\n");
      return 0;
    }
  }
  rc::ExecWithMallocTunables(argv);
  rc::TuneMalloc();

  rc::Config config;
  bool help = false;
  std::string error;
  if (!rc::ParseCommandLine(argc, argv, &config, &help, &error)) {
    std::fprintf(stderr, "ringcache: %s\n", error.c_str());
    return 1;
  }
  if (help) {
    std::fputs(rc::UsageText().c_str(), stdout);
    return 0;
  }
  rc::LogLevel level;
  if (rc::ParseLogLevel(config.loglevel, &level)) rc::SetLogLevel(level);

  // As Redis: a supervised server stays in the foreground, and a daemon without a pid
  // file of its own gets the default one.
  const bool background = config.daemonize && rc::net::ResolveSupervised(config.supervised) == "no";
  if (background && config.pidfile.empty()) config.pidfile = "/var/run/ringcache.pid";
  if (background && !rc::net::Daemonize(&error)) {
    std::fprintf(stderr, "ringcache: %s\n", error.c_str());
    return 1;
  }
  if (!config.logfile.empty() && !rc::net::OpenLogFile(config.logfile, &error)) {
    std::fprintf(stderr, "ringcache: %s\n", error.c_str());
    return 1;
  }
  if (config.disable_thp && !rc::net::DisableTransparentHugePages(&error)) {
    rc::Log(rc::LogLevel::kWarning, error);
  }
  if (!config.pidfile.empty() && !rc::net::WritePidFile(config.pidfile, &error)) {
    rc::Log(rc::LogLevel::kWarning, error);
  }

  // Signals are taken by one thread with sigwait; every other thread blocks them, and
  // SIGPIPE is ignored because a client may vanish mid-reply.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  rc::net::Server server(config);
  if (!server.Start(&error)) {
    std::fprintf(stderr, "ringcache: %s\n", error.c_str());
    if (!config.pidfile.empty()) rc::net::RemovePidFile(config.pidfile);
    return 1;
  }
  if (!rc::net::NotifyReady(config.supervised, &error)) rc::Log(rc::LogLevel::kWarning, error);
  // The signal thread is joined before exit (a thread still alive there costs a TSan
  // build a second's sleep per stop): `exiting` then sends it a last SIGTERM.
  std::atomic<bool> exiting{false};
  std::thread signal_thread([&server, &exiting, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (exiting.load()) return;
    rc::Log(rc::LogLevel::kNotice, "Received ", sig == SIGINT ? "SIGINT" : "SIGTERM",
            " scheduling shutdown...");
    server.StopOnSignal();
    // As Redis: a second signal while the last save runs stops at once.
    sigwait(&signals, &sig);
    if (exiting.load()) return;
    rc::Log(rc::LogLevel::kWarning, "You insist... exiting now.");
    server.RequestShutdown();
  });
  server.Wait();
  rc::net::NotifyStopping(config.supervised);
  if (!config.pidfile.empty()) rc::net::RemovePidFile(config.pidfile);
  exiting.store(true);
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  rc::Log(rc::LogLevel::kNotice, "ringcache is now ready to exit, bye bye...");
  return 0;
}
