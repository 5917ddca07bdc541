// The GEO commands over any zset encode-version: GEOADD, GEOPOS, GEODIST, GEOHASH, GEORADIUS,
// GEORADIUSBYMEMBER (and their _RO forms), GEOSEARCH and GEOSEARCHSTORE. Parsing, the order of
// checks, error texts and replies are Redis 7.0's geo.c; positions are geohash scores
// (engine/geohash.h). A search reads only the score ranges of the 9 cells covering its shape,
// each through the encoding's own score-range read (ZsetEncoding::RangeByScore), as Redis walks
// its skiplist from zslFirstInRange: the search is a range scan of the zset, not a read of it.
#include <strings.h>

#include <algorithm>
#include <cstdio>

#include "engine/command_context.h"
#include "engine/geohash.h"
#include "engine/handlers.h"
#include "engine/pqsort.h"
#include "engine/zset_args.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyType;
using encodings::RangeLimit;
using encodings::ScoredMember;
using encodings::ScoreRange;
using encodings::ZAddFlags;
using encodings::ZAddResult;
using encodings::ZsetEncoding;
using resp::ParseDouble;
using resp::Reply;

namespace {

// printf's "%f", as addReplyErrorFormat prints a coordinate.
std::string PercentF(double v) {
  const int n = std::snprintf(nullptr, 0, "%f", v);
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), "%f", v);
  out.resize(static_cast<size_t>(n));
  return out;
}

// addReplyHumanLongDouble: a coordinate as "%.17Lf" without trailing zeros.
Reply HumanDouble(double v) {
  std::string text;
  if (!resp::FormatLongDoubleHuman(static_cast<long double>(v), &text)) text = "0";
  return Reply::DoubleText(std::move(text));
}

// getDoubleFromObjectOrReply: `msg` or "value is not a valid float".
bool ArgDouble(CommandContext& ctx, size_t i, double* out, const char* msg = nullptr) {
  if (ParseDouble(ctx.arg(i), out)) return true;
  ctx.ReplyError(msg != nullptr ? std::string("ERR ") + msg : errors::kNotFloat);
  return false;
}

// extractLongLatOrReply over arguments i and i + 1.
bool ArgLongLat(CommandContext& ctx, size_t i, double* xy) {
  for (size_t k = 0; k < 2; ++k) {
    if (!ArgDouble(ctx, i + k, &xy[k])) return false;
  }
  if (xy[0] < geo::kLongMin || xy[0] > geo::kLongMax || xy[1] < geo::kLatMin ||
      xy[1] > geo::kLatMax) {
    ctx.ReplyError("ERR invalid longitude,latitude pair " + PercentF(xy[0]) + "," +
                   PercentF(xy[1]));
    return false;
  }
  return true;
}

// extractUnitOrReply: meters per unit, or a negative value after the error.
double ArgUnit(CommandContext& ctx, size_t i) {
  const char* u = ctx.arg(i).c_str();
  if (!strcasecmp(u, "m")) return 1;
  if (!strcasecmp(u, "km")) return 1000;
  if (!strcasecmp(u, "ft")) return 0.3048;
  if (!strcasecmp(u, "mi")) return 1609.34;
  ctx.ReplyError("ERR unsupported unit provided. please use M, KM, FT, MI");
  return -1;
}

// extractDistanceOrReply: radius and unit at i, i + 1.
bool ArgDistance(CommandContext& ctx, size_t i, geo::Shape* shape) {
  double distance = 0;
  if (!ArgDouble(ctx, i, &distance, "need numeric radius")) return false;
  if (distance < 0) {
    ctx.ReplyError("ERR radius cannot be negative");
    return false;
  }
  shape->radius = distance;
  const double to_meters = ArgUnit(ctx, i + 1);
  if (to_meters < 0) return false;
  shape->conversion = to_meters;
  return true;
}

// extractBoxOrReply: width, height and unit at i, i + 1, i + 2.
bool ArgBox(CommandContext& ctx, size_t i, geo::Shape* shape) {
  double w = 0, h = 0;
  if (!ArgDouble(ctx, i, &w, "need numeric width") ||
      !ArgDouble(ctx, i + 1, &h, "need numeric height")) {
    return false;
  }
  if (h < 0 || w < 0) {
    ctx.ReplyError("ERR height or width cannot be negative");
    return false;
  }
  shape->height = h;
  shape->width = w;
  const double to_meters = ArgUnit(ctx, i + 2);
  if (to_meters < 0) return false;
  shape->conversion = to_meters;
  return true;
}

// The score of one member of a loaded zset, or empty.
bool MemberScore(CommandContext& ctx, const KeyHandle& h, std::string_view member,
                 std::optional<double>* score) {
  std::vector<std::optional<double>> scores;
  if (!ctx.Check(ctx.Zset(h.meta).Scores(ctx.txn(), h, {member}, &scores))) return false;
  *score = scores[0];
  return true;
}

// longLatFromMember. False after a reply: a storage error, or Redis's error for a member the
// zset lacks.
bool ArgMemberPosition(CommandContext& ctx, const KeyHandle& h, size_t i, double* xy) {
  std::optional<double> score;
  if (!MemberScore(ctx, h, ctx.arg(i), &score)) return false;
  if (!score || !geo::DecodeScore(*score, xy)) {
    ctx.ReplyError("ERR could not decode requested zset member");
    return false;
  }
  return true;
}

struct Point {
  double longitude = 0, latitude = 0, dist = 0, score = 0;
  std::string member;
};

int ComparePoints(const Point& a, const Point& b) {
  if (a.dist > b.dist) return 1;
  if (a.dist == b.dist) return 0;
  return -1;
}

// membersOfAllNeighbors: the points of the 9 cells inside the shape, cell by cell in score
// order; with `limit` (COUNT ANY), stops at that many.
bool PointsInShape(CommandContext& ctx, const KeyHandle& h, geo::Shape* shape, size_t limit,
                   std::vector<Point>* points) {
  const geo::SearchCells cells = geo::CellsForShape(shape);
  ZsetEncoding& z = ctx.Zset(h.meta);
  size_t last_processed = 0;
  for (size_t i = 0; i < 9; ++i) {
    const geo::HashBits& cell = cells.cells[i];
    if (cell.IsZero()) continue;
    // A huge radius makes adjacent neighbours the same cell: skip a repeat of the previous one.
    if (last_processed != 0 && cell.bits == cells.cells[last_processed].bits &&
        cell.step == cells.cells[last_processed].step) {
      continue;
    }
    if (!points->empty() && limit != 0 && points->size() >= limit) break;
    uint64_t min = 0, max = 0;
    geo::ScoresOfCell(cell, &min, &max);
    ScoreRange range;  // min <= score < max
    range.min = {static_cast<double>(min), false};
    range.max = {static_cast<double>(max), true};
    std::vector<ScoredMember> found;
    if (!ctx.Check(z.RangeByScore(ctx.txn(), h, range, false, RangeLimit{}, &found))) return false;
    for (ScoredMember& m : found) {
      double xy[2];
      double distance = 0;
      if (geo::DecodeScore(m.score, xy) && geo::WithinShape(*shape, xy[0], xy[1], &distance)) {
        points->push_back(Point{xy[0], xy[1], distance, m.score, std::move(m.member)});
      }
      if (!points->empty() && limit != 0 && points->size() >= limit) break;
    }
    last_processed = i;
  }
  return true;
}

enum GeoFlags : int {
  kRadiusCoords = 1 << 0,    // around coordinates
  kRadiusMember = 1 << 1,    // around a member
  kRadiusNoStore = 1 << 2,   // no STORE / STOREDIST (the _RO forms)
  kGeoSearch = 1 << 3,       // GEOSEARCH's arguments
  kGeoSearchStore = 1 << 4,  // GEOSEARCHSTORE: STOREDIST without a key
};
enum class Sort { kNone, kAsc, kDesc };

// georadiusGeneric.
void GeoRadiusGeneric(CommandContext& ctx, size_t src_key_index, int flags) {
  const std::string* storekey = nullptr;
  bool storedist = false;
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(src_key_index), KeyType::kZset, &h, &exists)) return;

  size_t base_args = 0;
  geo::Shape shape;
  if (flags & kRadiusCoords) {
    base_args = 6;
    shape.type = geo::Shape::Type::kCircle;
    if (!ArgLongLat(ctx, 2, shape.xy)) return;
    if (!ArgDistance(ctx, base_args - 2, &shape)) return;
  } else if ((flags & kRadiusMember) && !exists) {
    // No source: the options are still parsed, to reply as STORE wants.
    base_args = 5;
  } else if (flags & kRadiusMember) {
    base_args = 5;
    shape.type = geo::Shape::Type::kCircle;
    if (!ArgMemberPosition(ctx, h, 2, shape.xy)) return;
    if (!ArgDistance(ctx, base_args - 2, &shape)) return;
  } else {
    base_args = 2;
    if (flags & kGeoSearchStore) {
      base_args = 3;
      storekey = &ctx.arg(1);
    }
  }

  bool withdist = false, withhash = false, withcoords = false;
  bool frommember = false, fromloc = false, byradius = false, bybox = false;
  Sort sort = Sort::kNone;
  bool any = false;
  int64_t count = 0;  // 0: unlimited
  const bool search = (flags & kGeoSearch) != 0;
  const size_t remaining = ctx.argc() > base_args ? ctx.argc() - base_args : 0;
  for (size_t i = 0; i < remaining; ++i) {
    const size_t at = base_args + i;
    const char* arg = ctx.arg(at).c_str();
    const bool can_store = !(flags & kRadiusNoStore) && !search;
    if (!strcasecmp(arg, "withdist")) {
      withdist = true;
    } else if (!strcasecmp(arg, "withhash")) {
      withhash = true;
    } else if (!strcasecmp(arg, "withcoord")) {
      withcoords = true;
    } else if (!strcasecmp(arg, "any")) {
      any = true;
    } else if (!strcasecmp(arg, "asc")) {
      sort = Sort::kAsc;
    } else if (!strcasecmp(arg, "desc")) {
      sort = Sort::kDesc;
    } else if (!strcasecmp(arg, "count") && i + 1 < remaining) {
      if (!ctx.ArgInt64(at + 1, &count)) return;
      if (count <= 0) return ctx.ReplyError("ERR COUNT must be > 0");
      i++;
    } else if (!strcasecmp(arg, "store") && i + 1 < remaining && can_store) {
      storekey = &ctx.arg(at + 1);
      storedist = false;
      i++;
    } else if (!strcasecmp(arg, "storedist") && i + 1 < remaining && can_store) {
      storekey = &ctx.arg(at + 1);
      storedist = true;
      i++;
    } else if (!strcasecmp(arg, "storedist") && search && (flags & kGeoSearchStore)) {
      storedist = true;
    } else if (!strcasecmp(arg, "frommember") && i + 1 < remaining && search && !fromloc) {
      // Without a source the member is not looked up; the reply is empty once parsing is done.
      if (exists && !ArgMemberPosition(ctx, h, at + 1, shape.xy)) return;
      frommember = true;
      i++;
    } else if (!strcasecmp(arg, "fromlonlat") && i + 2 < remaining && search && !frommember) {
      if (!ArgLongLat(ctx, at + 1, shape.xy)) return;
      fromloc = true;
      i += 2;
    } else if (!strcasecmp(arg, "byradius") && i + 2 < remaining && search && !bybox) {
      if (!ArgDistance(ctx, at + 1, &shape)) return;
      shape.type = geo::Shape::Type::kCircle;
      byradius = true;
      i += 2;
    } else if (!strcasecmp(arg, "bybox") && i + 3 < remaining && search && !byradius) {
      if (!ArgBox(ctx, at + 1, &shape)) return;
      shape.type = geo::Shape::Type::kBox;
      bybox = true;
      i += 3;
    } else {
      return ctx.ReplyError(errors::kSyntax);
    }
  }

  if (storekey != nullptr && (withdist || withhash || withcoords)) {
    return ctx.ReplyError(
        std::string("ERR ") +
        ((flags & kGeoSearchStore) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS") +
        " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
  }
  const std::string name(errors::ClientText(ctx.arg(0)));
  if (search && !(frommember || fromloc)) {
    return ctx.ReplyError("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " +
                          name);
  }
  if (search && !(byradius || bybox)) {
    return ctx.ReplyError("ERR exactly one of BYRADIUS and BYBOX can be specified for " + name);
  }
  if (any && count == 0) return ctx.ReplyError("ERR the ANY argument requires COUNT argument");

  std::vector<Point> points;
  if (!exists) {
    if (storekey != nullptr) return StoreZset(ctx, *storekey, {});
    ctx.reply = Reply::Array();
    return;
  }
  // COUNT returns the nearest ones, so it sorts ascending unless told otherwise (not with ANY).
  if (count != 0 && sort == Sort::kNone && !any) sort = Sort::kAsc;
  if (!PointsInShape(ctx, h, &shape, any ? static_cast<size_t>(count) : 0, &points)) return;
  if (points.empty() && storekey == nullptr) {
    ctx.reply = Reply::Array();
    return;
  }
  const size_t result_length = points.size();
  const size_t returned = (count == 0 || result_length < static_cast<uint64_t>(count))
                              ? result_length
                              : static_cast<size_t>(count);
  if (sort != Sort::kNone) {
    const bool desc = sort == Sort::kDesc;
    if (returned == result_length) {
      // glibc's qsort is a merge sort: stable.
      std::stable_sort(points.begin(), points.end(), [desc](const Point& a, const Point& b) {
        return desc ? ComparePoints(a, b) > 0 : ComparePoints(a, b) < 0;
      });
    } else {
      // With COUNT, Redis sorts only the first COUNT results with its pqsort: points at equal
      // distances come out in its order, not a stable one.
      PartialQsort(
          points, 0, static_cast<int64_t>(points.size()),
          [desc](const Point& a, const Point& b) {
            const int c = ComparePoints(a, b);
            return desc ? -c : c;
          },
          0, static_cast<int64_t>(returned) - 1);
    }
  }
  points.resize(returned);

  if (storekey == nullptr) {
    const bool options = withdist || withcoords || withhash;
    std::vector<Reply> items;
    items.reserve(points.size());
    for (Point& p : points) {
      p.dist /= shape.conversion;
      if (!options) {
        items.push_back(Reply::Bulk(std::move(p.member)));
        continue;
      }
      std::vector<Reply> item = {Reply::Bulk(std::move(p.member))};
      if (withdist) item.push_back(Reply::Bulk(geo::FormatDistance(p.dist)));
      if (withhash) item.push_back(Reply::Integer(static_cast<int64_t>(p.score)));
      if (withcoords) {
        item.push_back(Reply::Array({HumanDouble(p.longitude), HumanDouble(p.latitude)}));
      }
      items.push_back(Reply::Array(std::move(item)));
    }
    ctx.reply = Reply::Array(std::move(items));
    return;
  }
  std::vector<ScoredMember> stored;
  stored.reserve(points.size());
  for (Point& p : points) {
    p.dist /= shape.conversion;
    stored.push_back(ScoredMember{std::move(p.member), storedist ? p.dist : p.score});
  }
  StoreZset(ctx, *storekey, std::move(stored));
}

// GEOPOS's and GEOHASH's read: the score of each member argument (argv[2..]) of the zset at
// argv[1], empty for a member it lacks, all empty when the key does not exist. False after a
// reply (a wrong type, a storage error).
bool ScoresOfMemberArgs(CommandContext& ctx, std::vector<std::optional<double>>* scores) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return false;
  scores->assign(ctx.argc() - 2, std::nullopt);
  if (!exists) return true;
  const std::vector<std::string_view> members(ctx.argv().begin() + 2, ctx.argv().end());
  return ctx.Check(ctx.Zset(h.meta).Scores(ctx.txn(), h, members, scores));
}

}  // namespace

// geoaddCommand: GEOADD key [NX|XX] [CH] longitude latitude member ..., which Redis turns into
// ZADD key [NX|XX] [CH] score member ... (no GT, LT or INCR: they read as a longitude).
void GeoaddCommand(CommandContext& ctx) {
  ZAddFlags flags;
  bool ch = false;
  size_t longidx = 2;
  for (; longidx < ctx.argc(); ++longidx) {
    const char* opt = ctx.arg(longidx).c_str();
    if (!strcasecmp(opt, "nx")) {
      flags.nx = true;
    } else if (!strcasecmp(opt, "xx")) {
      flags.xx = true;
    } else if (!strcasecmp(opt, "ch")) {
      ch = true;
    } else {
      break;
    }
  }
  if ((ctx.argc() - longidx) % 3 != 0 || (flags.xx && flags.nx)) {
    return ctx.ReplyError(errors::kSyntax);
  }
  std::vector<ScoredMember> elems((ctx.argc() - longidx) / 3);
  for (size_t i = 0; i < elems.size(); ++i) {
    double xy[2];
    if (!ArgLongLat(ctx, longidx + i * 3, xy)) return;
    elems[i].score = geo::ScoreOf(xy[0], xy[1]);
    elems[i].member = ctx.arg(longidx + i * 3 + 2);
  }
  // ZADD's own check: no elements at all.
  if (elems.empty()) return ctx.ReplyError(errors::kSyntax);
  KeyHandle h;
  if (!ctx.LoadOrCreate(ctx.arg(1), KeyType::kZset, &h)) return;
  ZAddResult result;
  if (!ctx.Check(ctx.Zset(h.meta).Add(ctx.txn(), &h, flags, elems, &result))) return;
  if (result.added > 0) ctx.KeyReady(ctx.arg(1));
  ctx.reply = Reply::Integer(ch ? result.added + result.updated : result.added);
}

// GEOPOS key member ...: [longitude, latitude] per member, a null array for a missing one.
void GeoposCommand(CommandContext& ctx) {
  std::vector<std::optional<double>> scores;
  if (!ScoresOfMemberArgs(ctx, &scores)) return;
  std::vector<Reply> out;
  for (const std::optional<double>& score : scores) {
    double xy[2];
    if (!score || !geo::DecodeScore(*score, xy)) {
      out.push_back(Reply::NilArray());
    } else {
      out.push_back(Reply::Array({HumanDouble(xy[0]), HumanDouble(xy[1])}));
    }
  }
  ctx.reply = Reply::Array(std::move(out));
}

// GEOHASH key member ...: the 11-character standard geohash per member, null for a missing one.
void GeohashCommand(CommandContext& ctx) {
  std::vector<std::optional<double>> scores;
  if (!ScoresOfMemberArgs(ctx, &scores)) return;
  std::vector<Reply> out;
  for (const std::optional<double>& score : scores) {
    std::string hash;
    out.push_back(score && geo::StandardGeohash(*score, &hash) ? Reply::Bulk(std::move(hash))
                                                               : Reply::Nil());
  }
  ctx.reply = Reply::Array(std::move(out));
}

// GEODIST key member1 member2 [unit]: the unit is checked before the key.
void GeodistCommand(CommandContext& ctx) {
  double to_meter = 1;
  if (ctx.argc() == 5) {
    to_meter = ArgUnit(ctx, 4);
    if (to_meter < 0) return;
  } else if (ctx.argc() > 5) {
    return ctx.ReplyError(errors::kSyntax);
  }
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return;
  if (!exists) {
    ctx.reply = Reply::Nil();
    return;
  }
  std::vector<std::optional<double>> scores;
  if (!ctx.Check(ctx.Zset(h.meta).Scores(ctx.txn(), h, {ctx.arg(2), ctx.arg(3)}, &scores))) return;
  double a[2], b[2];
  if (!scores[0] || !scores[1] || !geo::DecodeScore(*scores[0], a) ||
      !geo::DecodeScore(*scores[1], b)) {
    ctx.reply = Reply::Nil();
    return;
  }
  ctx.reply = Reply::Bulk(geo::FormatDistance(geo::Distance(a[0], a[1], b[0], b[1]) / to_meter));
}

void GeoradiusCommand(CommandContext& ctx) { GeoRadiusGeneric(ctx, 1, kRadiusCoords); }
void GeoradiusbymemberCommand(CommandContext& ctx) { GeoRadiusGeneric(ctx, 1, kRadiusMember); }
void GeoradiusRoCommand(CommandContext& ctx) {
  GeoRadiusGeneric(ctx, 1, kRadiusCoords | kRadiusNoStore);
}
void GeoradiusbymemberRoCommand(CommandContext& ctx) {
  GeoRadiusGeneric(ctx, 1, kRadiusMember | kRadiusNoStore);
}
void GeosearchCommand(CommandContext& ctx) { GeoRadiusGeneric(ctx, 1, kGeoSearch); }
void GeosearchstoreCommand(CommandContext& ctx) {
  GeoRadiusGeneric(ctx, 2, kGeoSearch | kGeoSearchStore);
}

}  // namespace kvlab::engine
