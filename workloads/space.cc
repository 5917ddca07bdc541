#include "workloads/space.h"

#include <memory>
#include <unordered_set>
#include <vector>

#include "encodings/key_meta.h"

namespace kvlab::workloads {

using engine::Collector;
using engine::GcOptions;
using engine::GcStats;
using nlohmann::json;
using resp::Reply;

namespace {

Status Run(TargetConnection& c, const std::vector<std::string>& argv, Reply* reply) {
  CommandSample ignored;
  return c.Execute(argv, reply, &ignored);
}

Status Unexpected(const std::vector<std::string>& argv, const Reply& reply) {
  return Status::Corruption("measuring logical bytes: " + argv[0] + " replied " + reply.Describe());
}

// Adds one key's contents; a key gone since SCAN saw it adds nothing.
Status AddKey(TargetConnection& c, const std::string& key, LogicalSize* out) {
  Reply type;
  KVLAB_RETURN_IF_ERROR(Run(c, {"TYPE", key}, &type));
  if (type.is_error()) return Unexpected({"TYPE"}, type);
  const std::string& name = type.str();
  if (name == "none") return Status::OK();
  std::vector<std::string> argv;
  if (name == "string") {
    argv = {"GET", key};
  } else if (name == "hash") {
    argv = {"HGETALL", key};
  } else if (name == "zset") {
    argv = {"ZRANGE", key, "0", "-1"};
  } else if (name == "set") {
    argv = {"SMEMBERS", key};
  } else if (name == "list") {
    argv = {"LRANGE", key, "0", "-1"};
  } else {
    return Status::NotSupported("measuring logical bytes: keys of type " + name +
                                " are not counted yet");
  }
  Reply r;
  KVLAB_RETURN_IF_ERROR(Run(c, argv, &r));
  if (r.is_error()) return Unexpected(argv, r);
  uint64_t elements = 0, bytes = 0;
  if (name == "string") {
    if (r.type() == Reply::Type::kNil) return Status::OK();  // expired meanwhile
    elements = 1;
    bytes = r.str().size();
  } else {
    if (!r.is_aggregate()) return Unexpected(argv, r);
    if (r.elements().empty()) return Status::OK();  // expired meanwhile
    for (const Reply& e : r.elements()) bytes += e.str().size();
    // HGETALL: field, value pairs.
    elements = name == "hash" ? r.elements().size() / 2 : r.elements().size();
    if (name == "zset") bytes += 8 * elements;  // the scores, as doubles
  }
  ++out->keys;
  out->elements += elements;
  out->key_bytes += key.size();
  out->bytes += key.size() + bytes;
  LogicalSize::OfType& t = out->by_type[name];
  ++t.keys;
  t.elements += elements;
  t.bytes += key.size() + bytes;
  return Status::OK();
}

Status WalkDatabase(TargetConnection& c, LogicalSize* out) {
  std::unordered_set<std::string> seen;  // SCAN may return a key twice (Redis does)
  std::string cursor = "0";
  do {
    const std::vector<std::string> argv = {"SCAN", cursor, "COUNT", "1000"};
    Reply r;
    KVLAB_RETURN_IF_ERROR(Run(c, argv, &r));
    if (!r.is_aggregate() || r.elements().size() != 2 || !r.elements()[1].is_aggregate()) {
      return Unexpected(argv, r);
    }
    cursor = r.elements()[0].str();
    for (const Reply& key : r.elements()[1].elements()) {
      if (!seen.insert(key.str()).second) continue;
      KVLAB_RETURN_IF_ERROR(AddKey(c, key.str(), out));
    }
  } while (cursor != "0");
  return Status::OK();
}

json FootprintJson(const StoreFootprint& f) {
  json by_type = json::object();
  for (const auto& [type, l] : f.by_type) {
    by_type[type] = {{"keys", l.keys}, {"records", l.records}, {"bytes", l.bytes}};
  }
  return {{"records", f.records},
          {"bytes", f.bytes},
          {"garbage_records", f.garbage_records},
          {"garbage_bytes", f.garbage_bytes},
          {"by_type", by_type}};
}

// a / b, or null when b is 0.
json Ratio(uint64_t a, uint64_t b) {
  return b == 0 ? json(nullptr) : json(static_cast<double>(a) / static_cast<double>(b));
}

}  // namespace

Status MeasureLogicalSize(TargetConnection& c, LogicalSize* out) {
  *out = LogicalSize();
  Status s;
  for (int db = 0; s.ok(); ++db) {
    Reply r;
    s = Run(c, {"SELECT", std::to_string(db)}, &r);
    if (!s.ok()) break;
    if (r.is_error()) {
      if (db == 0) s = Unexpected({"SELECT"}, r);
      break;  // past the last database
    }
    s = WalkDatabase(c, out);
  }
  Reply r;
  const Status back = Run(c, {"SELECT", "0"}, &r);
  return s.ok() ? back : s;
}

Status MeasureFootprint(engine::Engine& engine, StoreFootprint* out) {
  *out = StoreFootprint();
  std::unique_ptr<backends::Iterator> it = engine.store()->NewIterator({});
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ++out->records;
    out->bytes += it->key().size() + it->value().size();
  }
  KVLAB_RETURN_IF_ERROR(it->status());
  it.reset();
  GcOptions options;
  options.dry_run = true;
  GcStats dry;
  KVLAB_RETURN_IF_ERROR(Collector(&engine).RunPass(options, &dry));
  out->garbage_records = dry.reclaimed_sub_keys + dry.reclaimed_metas;
  out->garbage_bytes = dry.garbage_bytes;
  for (const auto& [type, live] : dry.live) out->by_type[encodings::KeyTypeName(type)] = live;
  return Status::OK();
}

json LoadSpaceJson(const LoadSpace& space) {
  if (!space.measured) {
    return space.error.empty() ? json(nullptr) : json({{"error", space.error}});
  }
  json tier = json::object();
  for (const auto& [role, bytes] : space.tier_dataset_bytes) tier[role] = bytes;
  return {{"error", nullptr}, {"store", FootprintJson(space.store)}, {"tier_dataset_bytes", tier}};
}

json SpaceJson(const SpaceResult& space, bool persistent, uint64_t disk_bytes) {
  json out = {{"error", space.error.empty() ? json(nullptr) : json(space.error)}};
  if (!space.measured) return out;
  const LogicalSize& l = space.logical;
  json by_type = json::object();
  for (const auto& [type, t] : l.by_type) {
    by_type[type] = {{"keys", t.keys}, {"elements", t.elements}, {"bytes", t.bytes}};
  }
  out["logical"] = {{"keys", l.keys},
                    {"elements", l.elements},
                    {"key_bytes", l.key_bytes},
                    {"bytes", l.bytes},
                    {"by_type", by_type}};
  out["store"] = space.has_store ? FootprintJson(space.store) : json(nullptr);
  out["kv_amplification"] = space.has_store ? Ratio(space.store.bytes, l.bytes) : json(nullptr);
  out["live_kv_amplification"] = space.has_store
                                     ? Ratio(space.store.bytes - space.store.garbage_bytes, l.bytes)
                                     : json(nullptr);
  out["kv_bytes_per_element"] =
      space.has_store ? Ratio(space.store.bytes, l.elements) : json(nullptr);
  out["disk_amplification"] = persistent ? Ratio(disk_bytes, l.bytes) : json(nullptr);
  out["disk_bytes_per_element"] = persistent ? Ratio(disk_bytes, l.elements) : json(nullptr);
  if (!space.gc_ran) {
    out["gc"] = nullptr;
    return out;
  }
  const GcStats& g = space.gc;
  out["gc"] = {
      {"scanned", g.scanned},
      {"reclaimed_sub_keys", g.reclaimed_sub_keys},
      {"reclaimed_metas", g.reclaimed_metas},
      {"reclaimed_tier", g.reclaimed_tier},
      {"seconds", g.seconds},
      {"store", FootprintJson(space.store_after_gc)},
      {"kv_amplification", Ratio(space.store_after_gc.bytes, l.bytes)},
      {"disk_bytes", persistent ? json(space.disk_bytes_after_gc) : json(nullptr)},
      {"disk_log_bytes", persistent ? json(space.disk_log_bytes_after_gc) : json(nullptr)},
      {"disk_amplification",
       persistent ? Ratio(space.disk_bytes_after_gc, l.bytes) : json(nullptr)},
  };
  return out;
}

}  // namespace kvlab::workloads
