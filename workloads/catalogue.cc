#include "workloads/catalogue.h"

#include <filesystem>

#include "workloads/trace_replay.h"

namespace kvlab::workloads {
namespace {

// YCSB's core workloads (workloads/workload[a-f] in the YCSB repository), with YCSB's record:
// 10 fields of 100 bytes, here one Redis hash per record. YCSB reads all fields by default
// (readallfields=true), so a read is HGETALL; an update writes one field (writeallfields=false),
// so it is HSET of one field. Scans walk an index zset, as YCSB's Redis binding does, or a
// record's fields with HSCAN.
constexpr const char* kYcsbA = R"({
  "name": "ycsb-a",
  "description": "YCSB A, update heavy: 50% read (HGETALL), 50% update (HSET of one field); zipfian records",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 10000, "key_prefix": "user", "elements": 10, "value_bytes": 100},
  "load": {"commands": ["HSET {key} {elements}"]},
  "run": [{"name": "run", "operations": 100000, "warmup_operations": 1000, "key_distribution": "zipfian",
           "ops": [{"name": "read", "weight": 50, "commands": ["HGETALL {key}"]},
                   {"name": "update", "weight": 50, "commands": ["HSET {key} {element} {value}"]}]}]
})";

constexpr const char* kYcsbB = R"({
  "name": "ycsb-b",
  "description": "YCSB B, read mostly: 95% read (HGETALL), 5% update (HSET of one field); zipfian records",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 10000, "key_prefix": "user", "elements": 10, "value_bytes": 100},
  "load": {"commands": ["HSET {key} {elements}"]},
  "run": [{"name": "run", "operations": 100000, "warmup_operations": 1000, "key_distribution": "zipfian",
           "ops": [{"name": "read", "weight": 95, "commands": ["HGETALL {key}"]},
                   {"name": "update", "weight": 5, "commands": ["HSET {key} {element} {value}"]}]}]
})";

constexpr const char* kYcsbC = R"({
  "name": "ycsb-c",
  "description": "YCSB C, read only: 100% read (HGETALL); zipfian records",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 10000, "key_prefix": "user", "elements": 10, "value_bytes": 100},
  "load": {"commands": ["HSET {key} {elements}"]},
  "run": [{"name": "run", "operations": 100000, "warmup_operations": 1000, "key_distribution": "zipfian",
           "ops": [{"name": "read", "weight": 100, "commands": ["HGETALL {key}"]}]}]
})";

constexpr const char* kYcsbCField = R"({
  "name": "ycsb-c-field",
  "description": "YCSB C reading one field: 100% read (HGET of one field); zipfian records",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 10000, "key_prefix": "user", "elements": 10, "value_bytes": 100},
  "load": {"commands": ["HSET {key} {elements}"]},
  "run": [{"name": "run", "operations": 100000, "warmup_operations": 1000, "key_distribution": "zipfian",
           "ops": [{"name": "read", "weight": 100, "commands": ["HGET {key} {element}"]}]}]
})";

constexpr const char* kYcsbD = R"({
  "name": "ycsb-d",
  "description": "YCSB D, read latest: 95% read (HGETALL), 5% insert (HSET of a new record); latest records",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 10000, "key_prefix": "user", "elements": 10, "value_bytes": 100},
  "load": {"commands": ["HSET {key} {elements}"]},
  "run": [{"name": "run", "operations": 100000, "warmup_operations": 1000, "key_distribution": "latest",
           "ops": [{"name": "read", "weight": 95, "commands": ["HGETALL {key}"]},
                   {"name": "insert", "weight": 5, "commands": ["HSET {new_key} {elements}"]}]}]
})";

constexpr const char* kYcsbE = R"({
  "name": "ycsb-e",
  "description": "YCSB E, short ranges: 95% scan (ZRANGEBYSCORE over an index zset, up to 100 records), 5% insert; zipfian start records",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 10000, "key_prefix": "user", "elements": 10, "value_bytes": 100},
  "load": {"commands": ["HSET {key} {elements}", "ZADD ycsb:index {key_id} {key}"]},
  "run": [{"name": "run", "operations": 100000, "warmup_operations": 1000, "key_distribution": "zipfian",
           "scan_length": {"max": 100, "distribution": "uniform"},
           "ops": [{"name": "scan", "weight": 95,
                    "commands": ["ZRANGEBYSCORE ycsb:index {key_id} +inf LIMIT 0 {scan_length}"]},
                   {"name": "insert", "weight": 5,
                    "commands": ["HSET {new_key} {elements}", "ZADD ycsb:index {new_key_id} {new_key}"]}]}]
})";

constexpr const char* kYcsbEHscan = R"({
  "name": "ycsb-e-hscan",
  "description": "YCSB E with HSCAN: 95% scan of a record's fields (HSCAN COUNT 1-10), 5% insert; zipfian records",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 10000, "key_prefix": "user", "elements": 10, "value_bytes": 100},
  "load": {"commands": ["HSET {key} {elements}"]},
  "run": [{"name": "run", "operations": 100000, "warmup_operations": 1000, "key_distribution": "zipfian",
           "scan_length": {"max": 10, "distribution": "uniform"},
           "ops": [{"name": "scan", "weight": 95, "commands": ["HSCAN {key} 0 COUNT {scan_length}"]},
                   {"name": "insert", "weight": 5, "commands": ["HSET {new_key} {elements}"]}]}]
})";

constexpr const char* kYcsbF = R"({
  "name": "ycsb-f",
  "description": "YCSB F, read-modify-write: 50% read (HGETALL), 50% read-modify-write (HGET then HSET of one field); zipfian records",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 10000, "key_prefix": "user", "elements": 10, "value_bytes": 100},
  "load": {"commands": ["HSET {key} {elements}"]},
  "run": [{"name": "run", "operations": 100000, "warmup_operations": 1000, "key_distribution": "zipfian",
           "ops": [{"name": "read", "weight": 50, "commands": ["HGETALL {key}"]},
                   {"name": "rmw", "weight": 50,
                    "commands": ["HGET {key} {element}", "HSET {key} {element} {value}"]}]}]
})";

constexpr const char* kLeaderboard = R"({
  "name": "leaderboard",
  "description": "Game leaderboards: ZINCRBY and ZADD of scores, ZREVRANGE top 10, ZRANK and ZSCORE of hot players",
  "seed": 1,
  "keyspace": {"type": "zset", "records": 10, "key_prefix": "board:", "elements": 10000,
               "element_prefix": "player", "score_range": 1000000},
  "load": {"batch": 1000, "commands": ["ZADD {key} {elements}"]},
  "run": [{"name": "run", "operations": 50000, "warmup_operations": 500, "key_distribution": "uniform",
           "element_distribution": "zipfian",
           "ops": [{"name": "score", "weight": 30, "commands": ["ZINCRBY {key} {int:1:100} {element}"]},
                   {"name": "set-score", "weight": 10, "commands": ["ZADD {key} {score} {element}"]},
                   {"name": "top10", "weight": 30, "commands": ["ZREVRANGE {key} 0 9 WITHSCORES"]},
                   {"name": "rank", "weight": 10, "commands": ["ZRANK {key} {element}"]},
                   {"name": "get-score", "weight": 20, "commands": ["ZSCORE {key} {element}"]}]}]
})";

constexpr const char* kTimeline = R"({
  "name": "timeline",
  "description": "Timelines: ZADD of posts at now, ZRANGEBYSCORE windows, the latest 20 posts, ZREMRANGEBYSCORE trimming",
  "seed": 1,
  "keyspace": {"type": "zset", "records": 100, "key_prefix": "timeline:", "elements": 200,
               "element_prefix": "post", "load_score": "index"},
  "load": {"commands": ["ZADD {key} {elements}"]},
  "run": [{"name": "run", "operations": 50000, "warmup_operations": 500, "key_distribution": "zipfian",
           "ops": [{"name": "post", "weight": 30, "commands": ["ZADD {key} {now} post{now}"]},
                   {"name": "window", "weight": 40, "commands": ["ZRANGEBYSCORE {key} {now-2000} {now}"]},
                   {"name": "latest", "weight": 20,
                    "commands": ["ZREVRANGEBYSCORE {key} +inf -inf LIMIT 0 20"]},
                   {"name": "trim", "weight": 10, "commands": ["ZREMRANGEBYSCORE {key} -inf {now-20000}"]}]}]
})";

constexpr const char* kSessionStore = R"({
  "name": "session-store",
  "description": "A session store: GET of sessions, SET EX to write them, EXPIRE to keep them alive",
  "seed": 1,
  "keyspace": {"type": "string", "records": 10000, "key_prefix": "session:", "value_bytes": 200},
  "load": {"commands": ["SET {key} {value} EX 3600"]},
  "run": [{"name": "run", "operations": 100000, "warmup_operations": 1000, "key_distribution": "zipfian",
           "ops": [{"name": "read", "weight": 70, "commands": ["GET {key}"]},
                   {"name": "write", "weight": 15, "commands": ["SET {key} {value} EX 3600"]},
                   {"name": "touch", "weight": 15, "commands": ["EXPIRE {key} 3600"]}]}]
})";

constexpr const char* kBigKeys = R"({
  "name": "big-keys",
  "description": "Big keys: hashes of 100k fields, then HLEN, HGETALL, HDEL of single fields, and DEL",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 2, "key_prefix": "bighash:", "elements": 100000, "value_bytes": 100},
  "load": {"batch": 1000, "commands": ["HSET {key} {elements}"]},
  "run": [{"name": "hlen", "operations": 200, "ops": [{"name": "hlen", "commands": ["HLEN {key}"]}]},
          {"name": "hgetall", "operations": 4, "key_distribution": "sequential",
           "ops": [{"name": "hgetall", "commands": ["HGETALL {key}"]}]},
          {"name": "hdel", "operations": 2000, "element_distribution": "sequential",
           "ops": [{"name": "hdel", "commands": ["HDEL {key} {element}"]}]},
          {"name": "del", "operations": 2, "key_distribution": "sequential",
           "ops": [{"name": "del", "commands": ["DEL {key}"]}]}]
})";

// Big-key churn: large collections created, grown, deleted and re-created, so that lazy
// deletion leaves their old incarnations behind as garbage (docs/gc.md). The last keys are
// overwritten blindly with SET before their DEL, which orphans even an eagerly deleting
// version's records (Ardb: a re-creation would write the very same records again). A cell's
// space section then shows the garbage before GC and none after it.
// (On zset v3 the blind SET also leaves the key's store zset in the Redis tier, which GC does
// not reclaim yet: tier_memory shows it.)
constexpr const char* kBigKeyChurnHash = R"({
  "name": "big-key-churn-hash",
  "description": "Big-key churn over hashes of 10k fields: grow by new fields, re-create (DEL and a whole HSET), delete after a blind SET; garbage for the GC",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 6, "key_prefix": "churn:", "elements": 10000, "value_bytes": 32},
  "load": {"batch": 1000, "commands": ["HSET {key} {elements}"]},
  "run": [{"name": "grow", "operations": 3000,
           "ops": [{"name": "grow", "commands": ["HSET {key} grown{int:0:999999} {value}"]}]},
          {"name": "recreate", "operations": 12, "key_distribution": "sequential",
           "ops": [{"name": "recreate", "commands": ["DEL {key}", "HSET {key} {elements}"]}]},
          {"name": "delete", "operations": 2, "key_distribution": "sequential",
           "ops": [{"name": "delete", "commands": ["SET {key} {value}", "DEL {key}"]}]}]
})";

constexpr const char* kBigKeyChurnZset = R"({
  "name": "big-key-churn-zset",
  "description": "Big-key churn over zsets of 10k members: grow by new members, re-create (DEL and a whole ZADD), delete after a blind SET; garbage for the GC",
  "seed": 1,
  "keyspace": {"type": "zset", "records": 6, "key_prefix": "churnz:", "elements": 10000},
  "load": {"batch": 1000, "commands": ["ZADD {key} {elements}"]},
  "run": [{"name": "grow", "operations": 3000,
           "ops": [{"name": "grow", "commands": ["ZADD {key} {score} grown{int:0:999999}"]}]},
          {"name": "recreate", "operations": 12, "key_distribution": "sequential",
           "ops": [{"name": "recreate", "commands": ["DEL {key}", "ZADD {key} {elements}"]}]},
          {"name": "delete", "operations": 2, "key_distribution": "sequential",
           "ops": [{"name": "delete", "commands": ["SET {key} {value}", "DEL {key}"]}]}]
})";

// Score churn under a zset's range reads (issue 20): redis-benchmark's ZADD re-scores random
// members, and every re-score deletes one score-index record and writes another; the probe reads
// the 10 lowest-ranked members by rank and by score before the churn and every 10k updates, so
// the result (runs[].probes) shows what a 10-element range read costs at each point of the
// churn against what it cost before it.
constexpr const char* kZsetChurn = R"({
  "name": "zset-churn",
  "description": "Score churn: 1M ZADD re-scores of random members of one 10k-member zset; ZRANGE 0 9 and ZRANGEBYSCORE -inf +inf LIMIT 0 10 sampled before the churn and every 10k updates",
  "seed": 1,
  "keyspace": {"type": "zset", "records": 1, "key_prefix": "churn:", "elements": 10000},
  "load": {"batch": 1000, "commands": ["ZADD {key} {elements}"]},
  "run": [{"name": "churn", "operations": 1000000, "element_distribution": "uniform",
           "ops": [{"name": "rescore", "commands": ["ZADD {key} {score} {element}"]}],
           "probe": {"every": 10000, "operations": 100,
                     "ops": [{"name": "range10", "commands": ["ZRANGE {key} 0 9",
                              "ZRANGEBYSCORE {key} -inf +inf LIMIT 0 10"]}]}}]
})";

constexpr const char* kTtlChurn = R"({
  "name": "ttl-churn",
  "description": "TTL churn: small hashes created with millisecond TTLs and read while they expire (latest keys); expired sub-keys stay on disk until reclaimed",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 1000, "key_prefix": "ttl:", "elements": 10, "value_bytes": 20},
  "load": {"commands": ["HSET {key} {elements}", "PEXPIRE {key} {int:50:500}"]},
  "run": [{"name": "run", "operations": 50000, "warmup_operations": 500, "key_distribution": "latest",
           "ops": [{"name": "create", "weight": 40,
                    "commands": ["HSET {new_key} {elements}", "PEXPIRE {new_key} {int:10:200}"]},
                   {"name": "read", "weight": 40, "commands": ["HGETALL {key}"]},
                   {"name": "extend", "weight": 10, "commands": ["PEXPIRE {key} {int:10:200}"]},
                   {"name": "ttl", "weight": 10, "commands": ["PTTL {key}"]}]}]
})";

// Expiring sessions: collections created with short TTLs, read, deleted, re-created and given
// shorter TTLs, so that every way a key with sub-keys becomes garbage (expiry, DEL, overwrite)
// goes on while the run lasts. `kvlab bench --reclaim` runs a reclaim mechanism beside it
// (docs/workloads.md, "Reclaim"): the reads are the foreground whose latency it disturbs.
constexpr const char* kExpiringSessionsHash = R"({
  "name": "expiring-sessions-hash",
  "description": "Sessions as hashes of 50 fields with TTLs of 0.3-2 s: create, read a field, delete, re-create, shorten a TTL; garbage from expiry, DEL and overwrite for a reclaim mechanism running beside it",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 1000, "key_prefix": "sess:", "elements": 50, "value_bytes": 32},
  "load": {"batch": 50, "commands": ["HSET {key} {elements}", "PEXPIRE {key} {int:300:2000}"]},
  "run": [{"name": "run", "operations": 20000, "warmup_operations": 200, "key_distribution": "latest",
           "ops": [{"name": "create", "weight": 25,
                    "commands": ["HSET {new_key} {elements}", "PEXPIRE {new_key} {int:300:2000}"]},
                   {"name": "read", "weight": 50, "commands": ["HGET {key} {element}"]},
                   {"name": "delete", "weight": 10, "commands": ["DEL {key}"]},
                   {"name": "recreate", "weight": 10, "commands": ["DEL {key}", "HSET {key} {elements}", "PEXPIRE {key} {int:300:2000}"]},
                   {"name": "shorten", "weight": 5, "commands": ["PEXPIRE {key} {int:1:100}"]}]}]
})";

constexpr const char* kExpiringSessionsZset = R"({
  "name": "expiring-sessions-zset",
  "description": "Sessions as zsets of 50 members with TTLs of 0.3-2 s: create, read a score, delete, re-create, shorten a TTL; garbage from expiry, DEL and overwrite for a reclaim mechanism running beside it",
  "seed": 1,
  "keyspace": {"type": "zset", "records": 1000, "key_prefix": "sessz:", "elements": 50},
  "load": {"batch": 50, "commands": ["ZADD {key} {elements}", "PEXPIRE {key} {int:300:2000}"]},
  "run": [{"name": "run", "operations": 20000, "warmup_operations": 200, "key_distribution": "latest",
           "ops": [{"name": "create", "weight": 25,
                    "commands": ["ZADD {new_key} {elements}", "PEXPIRE {new_key} {int:300:2000}"]},
                   {"name": "read", "weight": 50, "commands": ["ZSCORE {key} {element}"]},
                   {"name": "delete", "weight": 10, "commands": ["DEL {key}"]},
                   {"name": "recreate", "weight": 10, "commands": ["DEL {key}", "ZADD {key} {elements}", "PEXPIRE {key} {int:300:2000}"]},
                   {"name": "shorten", "weight": 5, "commands": ["PEXPIRE {key} {int:1:100}"]}]}]
})";

// Tags and membership: each record is a tag's set of item ids. SISMEMBER asks whether an item
// carries a tag, SINTER finds the items of two tags, SMEMBERS lists a tag, SADD tags an item.
constexpr const char* kTags = R"({
  "name": "tags",
  "description": "Tags and membership over sets of item ids: SISMEMBER, SADD, SINTER of two tag sets, SMEMBERS; zipfian tags",
  "seed": 1,
  "keyspace": {"type": "set", "records": 1000, "key_prefix": "tag:", "elements": 200, "element_prefix": "item"},
  "load": {"commands": ["SADD {key} {elements}"]},
  "run": [{"name": "run", "operations": 50000, "warmup_operations": 500, "key_distribution": "zipfian",
           "ops": [{"name": "is-tagged", "weight": 40, "commands": ["SISMEMBER {key} {element}"]},
                   {"name": "tag", "weight": 20, "commands": ["SADD {key} item{int:0:399}"]},
                   {"name": "both-tags", "weight": 20, "commands": ["SINTER {key} tag:{int:0:999}"]},
                   {"name": "list-tag", "weight": 20, "commands": ["SMEMBERS {key}"]}]}]
})";

// Every collection type in one workload: what `kvlab study` runs by default, so that one study
// ranks the versions of every type. Player profiles are hashes of 10 fields; one leaderboard
// zset holds every player; each player has a set of achievements and a list of recent matches.
constexpr const char* kGame = R"({
  "name": "game",
  "description": "A game backend: player profiles as hashes (HGETALL, HGET, HSET, HLEN), one leaderboard zset of every player (ZINCRBY, ZREVRANGE top 10, ZRANK, ZSCORE), a set of achievements per player (SISMEMBER, SADD, SCARD) and a list of recent matches per player (LPUSH + LTRIM to 20, LRANGE 0 9); zipfian players",
  "seed": 1,
  "keyspace": {"type": "hash", "records": 10000, "key_prefix": "player:", "elements": 10, "value_bytes": 50},
  "load": {"commands": ["HSET {key} {elements}", "ZADD board {score} {key}",
                        "SADD achievements:{key} first-login tutorial level-5 level-10 daily-streak",
                        "RPUSH matches:{key} m{int:0:999999} m{int:0:999999} m{int:0:999999} m{int:0:999999} m{int:0:999999}"]},
  "run": [{"name": "run", "operations": 50000, "warmup_operations": 1000, "key_distribution": "zipfian",
           "ops": [{"name": "profile", "weight": 20, "commands": ["HGETALL {key}"]},
                   {"name": "field", "weight": 15, "commands": ["HGET {key} {element}"]},
                   {"name": "update", "weight": 10, "commands": ["HSET {key} {element} {value}"]},
                   {"name": "fields", "weight": 5, "commands": ["HLEN {key}"]},
                   {"name": "score", "weight": 12, "commands": ["ZINCRBY board {int:1:100} {key}"]},
                   {"name": "top10", "weight": 8, "commands": ["ZREVRANGE board 0 9 WITHSCORES"]},
                   {"name": "rank", "weight": 4, "commands": ["ZRANK board {key}"]},
                   {"name": "get-score", "weight": 4, "commands": ["ZSCORE board {key}"]},
                   {"name": "has-achievement", "weight": 6, "commands": ["SISMEMBER achievements:{key} a{int:0:49}"]},
                   {"name": "unlock", "weight": 3, "commands": ["SADD achievements:{key} a{int:0:49}"]},
                   {"name": "achievements", "weight": 2, "commands": ["SCARD achievements:{key}"]},
                   {"name": "play", "weight": 5, "commands": ["LPUSH matches:{key} m{int:0:999999}", "LTRIM matches:{key} 0 19"]},
                   {"name": "history", "weight": 6, "commands": ["LRANGE matches:{key} 0 9"]}]}]
})";

// Lists (issue 15). A job queue: producers LPUSH jobs, consumers BRPOP them (over RESP they
// block when a queue runs dry, for at most 50 ms; in-process a dry queue is an error reply,
// which the preloaded jobs and the producers' larger share make rare, and which the operation
// declares expected), and LLEN watches the
// backlog. Run it over RESP with several threads to see blocking consumers:
// kvlab bench run job-queue --resp 127.0.0.1:7000 --threads 8.
constexpr const char* kJobQueue = R"({
  "name": "job-queue",
  "description": "A job queue: 50% LPUSH a job, 45% BRPOP one (0.05 s timeout), 5% LLEN; 16 queues of 100 preloaded jobs, 4 client threads",
  "seed": 1,
  "threads": 4,
  "keyspace": {"type": "list", "records": 16, "key_prefix": "queue:", "elements": 100, "element_prefix": "job", "value_bytes": 64},
  "load": {"batch": 100, "commands": ["RPUSH {key} {elements}"]},
  "run": [{"name": "run", "operations": 100000, "warmup_operations": 1000, "key_distribution": "uniform",
           "ops": [{"name": "produce", "weight": 50, "commands": ["LPUSH {key} {value}"]},
                   {"name": "consume", "weight": 45, "commands": ["BRPOP {key} 0.05"], "expect_errors": true},
                   {"name": "backlog", "weight": 5, "commands": ["LLEN {key}"]}]}]
})";

// A capped list of recent items per user (a feed, a "recently viewed" list): push and trim to
// the newest 100, read the newest 10.
constexpr const char* kRecentItems = R"({
  "name": "recent-items",
  "description": "Capped recent-items lists: 50% LPUSH + LTRIM 0 99, 50% LRANGE 0 9; 1,000 lists of 100 items, zipfian users",
  "seed": 1,
  "keyspace": {"type": "list", "records": 1000, "key_prefix": "recent:", "elements": 100, "element_prefix": "item", "value_bytes": 64},
  "load": {"batch": 100, "commands": ["RPUSH {key} {elements}"]},
  "run": [{"name": "run", "operations": 100000, "warmup_operations": 1000, "key_distribution": "zipfian",
           "ops": [{"name": "push", "weight": 50, "commands": ["LPUSH {key} item-{now}", "LTRIM {key} 0 99"]},
                   {"name": "read", "weight": 50, "commands": ["LRANGE {key} 0 9"]}]}]
})";

// Nearby search (GEO): points of interest in 4 zsets of 10,000 points, searched around random
// places. The load GEOADDs them, as a user would, at uniform random coordinates ("load_score":
// "lonlat"). A search reads the score ranges of the up to 9 cells covering its circle
// (engine/geohash.h): a range-scan workload of the zset encodings.
// Coordinates are drawn as an integer part and 6 decimals (two placeholders, distinct texts so
// that they are drawn apart).
constexpr const char* kGeoNearby = R"({
  "name": "geo-nearby",
  "description": "Nearby search: GEOSEARCH BYRADIUS 500 km (all, and the 10 nearest) around random places in zsets of 10k points, GEOADD moving points, GEOPOS",
  "seed": 1,
  "keyspace": {"type": "zset", "records": 4, "key_prefix": "geo:", "elements": 10000,
               "element_prefix": "poi", "load_score": "lonlat"},
  "load": {"batch": 1000, "commands": ["GEOADD {key} {elements}"]},
  "run": [{"name": "run", "operations": 20000, "warmup_operations": 200, "key_distribution": "uniform",
           "element_distribution": "uniform",
           "ops": [{"name": "add", "weight": 20,
                    "commands": ["GEOADD {key} {int:-179:178}.{int:0:999999} {int:-84:83}.{int:0:999998} {element}"]},
                   {"name": "nearby", "weight": 40,
                    "commands": ["GEOSEARCH {key} FROMLONLAT {int:-179:178}.{int:0:999999} {int:-84:83}.{int:0:999998} BYRADIUS 500 km ASC"]},
                   {"name": "nearest10", "weight": 30,
                    "commands": ["GEOSEARCH {key} FROMLONLAT {int:-179:178}.{int:0:999999} {int:-84:83}.{int:0:999998} BYRADIUS 500 km ASC COUNT 10 WITHDIST"]},
                   {"name": "pos", "weight": 10, "commands": ["GEOPOS {key} {element}"]}]}]
})";

}  // namespace

const std::vector<CatalogueEntry>& Catalogue() {
  static const std::vector<CatalogueEntry> kEntries = {
      {"ycsb-a", kYcsbA},
      {"ycsb-b", kYcsbB},
      {"ycsb-c", kYcsbC},
      {"ycsb-c-field", kYcsbCField},
      {"ycsb-d", kYcsbD},
      {"ycsb-e", kYcsbE},
      {"ycsb-e-hscan", kYcsbEHscan},
      {"ycsb-f", kYcsbF},
      {"leaderboard", kLeaderboard},
      {"timeline", kTimeline},
      {"session-store", kSessionStore},
      {"big-keys", kBigKeys},
      {"big-key-churn-hash", kBigKeyChurnHash},
      {"big-key-churn-zset", kBigKeyChurnZset},
      {"ttl-churn", kTtlChurn},
      {"zset-churn", kZsetChurn},
      {"expiring-sessions-hash", kExpiringSessionsHash},
      {"expiring-sessions-zset", kExpiringSessionsZset},
      {"game", kGame},
      {"job-queue", kJobQueue},
      {"recent-items", kRecentItems},
      {"tags", kTags},
      {"geo-nearby", kGeoNearby},
  };
  return kEntries;
}

Status BuiltinWorkload(const std::string& name, Workload* out) {
  for (const CatalogueEntry& e : Catalogue()) {
    if (name == e.name) return ParseWorkload(e.json, "builtin:" + name, out);
  }
  std::string names;
  for (const CatalogueEntry& e : Catalogue())
    names += std::string(names.empty() ? "" : ", ") + e.name;
  return Status::NotFound("no built-in workload '" + name + "' (built in: " + names +
                          "; or give a .json file)");
}

Status ResolveWorkload(const std::string& name_or_path, Workload* out) {
  if (name_or_path.starts_with("trace:")) return TraceWorkload(name_or_path.substr(6), out);
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec) || name_or_path.ends_with(".json")) {
    return LoadWorkloadFile(name_or_path, out);
  }
  return BuiltinWorkload(name_or_path, out);
}

DefaultSuite MainJobSuite() {
  auto scaled = [](const char* name, uint64_t records, uint64_t operations, uint64_t warmup,
                   std::optional<uint64_t> elements = std::nullopt) {
    SuiteEntry e;
    e.workload = name;
    e.overrides.records = records;
    e.overrides.operations = operations;
    e.overrides.warmup_operations = warmup;
    e.overrides.elements = elements;
    return e;
  };
  DefaultSuite suite;
  suite.workloads = {
      scaled("ycsb-a", 2000, 10000, 500),        scaled("ycsb-c-field", 2000, 10000, 500),
      scaled("ycsb-e", 2000, 2500, 100),         scaled("ycsb-f", 2000, 8000, 500),
      scaled("leaderboard", 4, 5000, 200, 2000), scaled("timeline", 50, 8000, 200),
      scaled("session-store", 2000, 10000, 500), scaled("ttl-churn", 500, 6000, 200),
  };
  // Big keys keep their phases' lengths; 10k fields instead of 100k.
  SuiteEntry big;
  big.workload = "big-keys";
  big.overrides.elements = 10000;
  suite.workloads.push_back(big);
  return suite;
}

}  // namespace kvlab::workloads
