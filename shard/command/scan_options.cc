#include "shard/command/scan_options.h"

namespace rc {

void ParseScanOptions(ArgParser& p, bool keyspace, ScanOptions* out) {
  while (p.HasNext()) {
    if (p.Option("COUNT")) {
      out->count = p.Next<int64_t>();
      if (p.ok() && out->count < 1) p.Fail(err::kSyntax);
    } else if (p.Option("MATCH")) {
      out->pattern = p.Next<std::string_view>();
      out->use_pattern = out->pattern != "*";
    } else if (keyspace && p.Option("TYPE")) {
      out->type = p.Next<std::string_view>();
      out->use_type = true;
    } else {
      p.Fail(err::kSyntax);
    }
  }
}

}  // namespace rc
